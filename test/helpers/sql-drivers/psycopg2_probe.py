"""psycopg2 against adreport's SQL endpoint (issue 41), run by test/service/sql-endpoint-drivers.test.ts.

Usage: /usr/bin/python3 psycopg2_probe.py '<json: port, user, password, start, end, campaignId>'.
Prints one JSON object: what the driver saw at each step (values, descriptions, transaction
states, error codes), never a verdict; the test judges. Debian's python3-psycopg2 (2.9).
"""

import datetime
import json
import sys

import psycopg2
import psycopg2.extensions as ext

QUERY = """
SELECT d.campaign_id, c.name, sum(d.clicks) AS clicks, sum(d.impressions) AS impressions,
       round(sum(d.cost), 6) AS cost, min(d.day) AS first_day
  FROM campaign_daily d JOIN campaigns c ON c.id = d.campaign_id
 WHERE d.day BETWEEN %s AND %s AND d.campaign_id = %s
 GROUP BY d.campaign_id, c.name
"""

STATUS = {
    ext.TRANSACTION_STATUS_IDLE: "idle",
    ext.TRANSACTION_STATUS_ACTIVE: "active",
    ext.TRANSACTION_STATUS_INTRANS: "intrans",
    ext.TRANSACTION_STATUS_INERROR: "inerror",
    ext.TRANSACTION_STATUS_UNKNOWN: "unknown",
}


def plain(value):
    """A value of a row as JSON: Decimal and dates as their text, ints as ints."""
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    if isinstance(value, (int, str)) or value is None:
        return value
    return str(value)


def failure(error):
    return {"pgcode": error.pgcode, "message": (error.pgerror or str(error)).strip(), "type": type(error).__name__}


def main():
    args = json.loads(sys.argv[1])
    out = {}
    conn = psycopg2.connect(
        host="127.0.0.1",
        port=args["port"],
        user=args["user"],
        password=args["password"],
        dbname="adreport",
        sslmode="require",
        connect_timeout=20,
        application_name="psycopg2-driver-test",
    )
    out["serverVersion"] = conn.server_version
    out["statusAfterConnect"] = STATUS[conn.get_transaction_status()]
    cur = conn.cursor()

    # A parameterised query: psycopg2 interpolates %s client-side, a date as '...'::date.
    start = datetime.date.fromisoformat(args["start"])
    end = datetime.date.fromisoformat(args["end"])
    cur.execute(QUERY, (start, end, args["campaignId"]))
    out["query"] = cur.query.decode()
    out["rows"] = [[plain(v) for v in row] for row in cur.fetchall()]
    out["description"] = [{"name": d.name, "typeCode": d.type_code} for d in cur.description]
    out["rowcount"] = cur.rowcount
    # psycopg2 sent BEGIN before the SELECT: the session is in a transaction block until commit.
    out["statusAfterSelect"] = STATUS[conn.get_transaction_status()]
    conn.commit()
    out["statusAfterCommit"] = STATUS[conn.get_transaction_status()]

    # The same SELECT again, to see the row types in Python.
    cur.execute(QUERY, (start, end, args["campaignId"]))
    row = cur.fetchone()
    out["pythonTypes"] = [type(v).__name__ for v in row] if row else []
    conn.commit()

    # An error in the block fails it (25P02 after), rollback ends it and the session goes on.
    try:
        cur.execute("SELECT no_such_column FROM campaigns")
        out["badColumn"] = "no error"
    except psycopg2.Error as error:
        out["badColumn"] = failure(error)
    out["statusAfterError"] = STATUS[conn.get_transaction_status()]
    try:
        cur.execute("SELECT count(*) FROM campaigns")
        out["inFailedBlock"] = "no error"
    except psycopg2.Error as error:
        out["inFailedBlock"] = failure(error)
    conn.rollback()
    out["statusAfterRollback"] = STATUS[conn.get_transaction_status()]
    try:
        cur.execute("SELECT c.no_such_column FROM campaigns c")
        out["badQualifiedColumn"] = "no error"
    except psycopg2.Error as error:
        out["badQualifiedColumn"] = failure(error)
    conn.rollback()
    cur.execute("SELECT count(*) FROM campaigns")
    out["countAfterRollback"] = cur.fetchone()[0]
    conn.commit()

    # A write is refused as a read-only server refuses it.
    try:
        cur.execute("INSERT INTO campaigns (id, name) VALUES (%s, %s)", (1, "x"))
        out["insert"] = "no error"
    except psycopg2.Error as error:
        out["insert"] = failure(error)
    conn.rollback()

    # Autocommit: no BEGIN, idle right after the statement.
    conn.autocommit = True
    cur.execute("SELECT count(*) FROM campaigns WHERE id = %s", (args["campaignId"],))
    out["autocommitCount"] = cur.fetchone()[0]
    out["statusAutocommit"] = STATUS[conn.get_transaction_status()]
    conn.close()
    print(json.dumps(out))


if __name__ == "__main__":
    try:
        main()
    except psycopg2.Error as error:
        print(json.dumps({"error": failure(error)}))
        sys.exit(1)
