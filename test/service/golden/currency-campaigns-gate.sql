-- $1 = 2
-- $2 = "2026-10-23"
-- $3 = "2026-11-21"
-- $4 = "USD"
SELECT (EXISTS (SELECT 1 FROM fx_rates WHERE day BETWEEN $2::DATE AND $3::DATE AND NOT published
             AND currency IN (SELECT currency FROM adplatform_accounts WHERE organization_id = $1::BIGINT UNION SELECT $4::VARCHAR)))::BOOLEAN AS estimated
