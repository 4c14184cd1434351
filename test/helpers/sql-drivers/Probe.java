import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.postgresql.PGResultSetMetaData;
import org.postgresql.PGStatement;

/**
 * pgJDBC against adreport's SQL endpoint (issue 41), run by test/service/sql-endpoint-drivers.test.ts
 * as a single-file source program: {@code java -cp /usr/share/java/postgresql.jar Probe.java PORT
 * USER PASSWORD START END CAMPAIGN_ID...}. It prints one JSON object per line: what the driver
 * saw, never a verdict; the test judges. An exception is a line {"step":"error",...} and exit 1.
 *
 * <p>The prepared statement runs once per campaign id given (the test gives 7 or more): pgJDBC
 * switches to a named server-side statement and binary result transfer after prepareThreshold (5)
 * executions, so the later executions go through Parse/Describe/Bind with binary formats.
 */
public class Probe {
  static final String QUERY =
      "SELECT d.campaign_id, c.name, sum(d.clicks) AS clicks, sum(d.impressions) AS impressions,"
          + " round(sum(d.cost), 6) AS cost, min(d.day) AS first_day,"
          + " sum(d.clicks)::double precision AS clicks_float"
          + " FROM campaign_daily d JOIN campaigns c ON c.id = d.campaign_id"
          + " WHERE d.day BETWEEN ? AND ? AND d.campaign_id = ?"
          + " GROUP BY d.campaign_id, c.name";

  public static void main(String[] args) throws Exception {
    try {
      run(args);
    } catch (SQLException e) {
      emit("{\"step\":\"error\",\"sqlState\":" + str(e.getSQLState()) + ",\"message\":" + str(e.getMessage()) + "}");
      System.exit(1);
    }
  }

  static void run(String[] args) throws SQLException {
    String url = "jdbc:postgresql://127.0.0.1:" + args[0] + "/adreport?sslmode=require";
    Properties props = new Properties();
    props.setProperty("user", args[1]);
    props.setProperty("password", args[2]);
    props.setProperty("ApplicationName", "adreport-driver-test");
    LocalDate start = LocalDate.parse(args[3]);
    LocalDate end = LocalDate.parse(args[4]);
    List<Long> campaignIds = new ArrayList<>();
    for (int i = 5; i < args.length; i++) campaignIds.add(Long.parseLong(args[i]));

    try (Connection connection = DriverManager.getConnection(url, props)) {
      DatabaseMetaData meta = connection.getMetaData();
      emit(
          "{\"step\":\"connected\",\"product\":"
              + str(meta.getDatabaseProductName())
              + ",\"version\":"
              + str(meta.getDatabaseProductVersion())
              + ",\"driver\":"
              + str(meta.getDriverVersion())
              + "}");

      try (ResultSet tables = meta.getTables(null, "public", "%", new String[] {"VIEW", "TABLE"})) {
        while (tables.next()) {
          emit(
              "{\"step\":\"table\",\"schema\":"
                  + str(tables.getString("TABLE_SCHEM"))
                  + ",\"name\":"
                  + str(tables.getString("TABLE_NAME"))
                  + ",\"type\":"
                  + str(tables.getString("TABLE_TYPE"))
                  + "}");
        }
      }

      try (ResultSet columns = meta.getColumns(null, "public", "campaign_daily", "%")) {
        while (columns.next()) {
          emit(
              "{\"step\":\"column\",\"name\":"
                  + str(columns.getString("COLUMN_NAME"))
                  + ",\"typeName\":"
                  + str(columns.getString("TYPE_NAME"))
                  + ",\"dataType\":"
                  + columns.getInt("DATA_TYPE")
                  + ",\"position\":"
                  + columns.getInt("ORDINAL_POSITION")
                  + "}");
        }
      }

      try (PreparedStatement statement = connection.prepareStatement(QUERY)) {
        int execution = 0;
        for (long campaignId : campaignIds) {
          execution++;
          statement.setObject(1, start);
          statement.setObject(2, end);
          statement.setLong(3, campaignId);
          try (ResultSet rs = statement.executeQuery()) {
            PGResultSetMetaData pgMeta = rs.getMetaData().unwrap(PGResultSetMetaData.class);
            StringBuilder formats = new StringBuilder("[");
            StringBuilder types = new StringBuilder("[");
            for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
              if (i > 1) {
                formats.append(',');
                types.append(',');
              }
              formats.append(pgMeta.getFormat(i));
              types.append(str(rs.getMetaData().getColumnTypeName(i)));
            }
            StringBuilder rows = new StringBuilder("[");
            boolean first = true;
            while (rs.next()) {
              if (!first) rows.append(',');
              first = false;
              BigDecimal cost = rs.getBigDecimal("cost");
              LocalDate firstDay = rs.getObject("first_day", LocalDate.class);
              rows.append("{\"campaignId\":")
                  .append(rs.getLong("campaign_id"))
                  .append(",\"name\":")
                  .append(str(rs.getString("name")))
                  .append(",\"clicks\":")
                  .append(rs.getLong("clicks"))
                  .append(",\"impressions\":")
                  .append(rs.getLong("impressions"))
                  .append(",\"cost\":")
                  .append(str(cost == null ? null : cost.toPlainString()))
                  .append(",\"firstDay\":")
                  .append(str(firstDay == null ? null : firstDay.toString()))
                  .append(",\"clicksFloat\":")
                  .append(rs.getDouble("clicks_float"))
                  .append('}');
            }
            rows.append(']');
            emit(
                "{\"step\":\"execution\",\"execution\":"
                    + execution
                    + ",\"campaignId\":"
                    + campaignId
                    + ",\"serverPrepared\":"
                    + statement.unwrap(PGStatement.class).isUseServerPrepare()
                    + ",\"formats\":"
                    + formats
                    + "]"
                    + ",\"types\":"
                    + types
                    + "]"
                    + ",\"rows\":"
                    + rows
                    + "}");
          }
        }
      }
    }
  }

  static void emit(String line) {
    System.out.println(line);
    System.out.flush();
  }

  /** A JSON string (or null). */
  static String str(String value) {
    if (value == null) return "null";
    StringBuilder out = new StringBuilder("\"");
    for (char ch : value.toCharArray()) {
      switch (ch) {
        case '"':
          out.append("\\\"");
          break;
        case '\\':
          out.append("\\\\");
          break;
        case '\n':
          out.append("\\n");
          break;
        case '\r':
          out.append("\\r");
          break;
        case '\t':
          out.append("\\t");
          break;
        default:
          if (ch < 0x20) out.append(String.format("\\u%04x", (int) ch));
          else out.append(ch);
      }
    }
    return out.append('"').toString();
  }
}
