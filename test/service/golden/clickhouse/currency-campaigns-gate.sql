-- {p1} = 2
-- {p2} = "2026-10-23"
-- {p3} = "2026-11-21"
-- {p4} = "USD"
SELECT toBool((EXISTS (SELECT 1 FROM fx_rates WHERE day BETWEEN {p2:Date32} AND {p3:Date32} AND NOT published
             AND currency IN (SELECT currency FROM adplatform_accounts WHERE organization_id = {p1:Int64} UNION SELECT {p4:String})))) AS estimated
