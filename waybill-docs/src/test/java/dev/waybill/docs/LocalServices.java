package dev.waybill.docs;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The PostgreSQL the pages' applications run against in this build, and what their builds do not
 * have that this module's class path does.
 */
public final class LocalServices {

	/** The build's database; each application gets a schema of its own in it. */
	public static final String DATABASE = "jdbc:postgresql://127.0.0.1:5432/test";

	/** Auto-configurations of JPA and of the Waybill modules a page's build leaves out. */
	public static final List<String> NOT_IN_A_PAGES_BUILD = List.of(
			"org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration",
			"org.springframework.boot.hibernate.autoconfigure.metrics.HibernateMetricsAutoConfiguration",
			"org.springframework.boot.data.jpa.autoconfigure.DataJpaRepositoriesAutoConfiguration",
			"dev.waybill.outbox.hibernate.autoconfigure.WaybillHibernateAutoConfiguration",
			"dev.waybill.retention.autoconfigure.WaybillRetentionAutoConfiguration",
			"dev.waybill.schedules.autoconfigure.WaybillSchedulesAutoConfiguration",
			"dev.waybill.replay.autoconfigure.WaybillReplayAutoConfiguration",
			"dev.waybill.console.autoconfigure.WaybillConsoleAutoConfiguration");

	private LocalServices() {
	}

	/**
	 * Creates a schema named for its user.
	 * @param prefix what the schema is for
	 * @return its name
	 */
	public static String createSchema(String prefix) throws SQLException {
		String schema = prefix + "_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
		execute("CREATE SCHEMA " + schema);
		return schema;
	}

	public static void dropSchema(String schema) throws SQLException {
		execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
	}

	/** The first column of each row the query returns. */
	static List<String> query(String sql) throws SQLException {
		List<String> rows = new ArrayList<>();
		try (Connection connection = DriverManager.getConnection(DATABASE, "postgres", "");
				Statement statement = connection.createStatement();
				ResultSet result = statement.executeQuery(sql)) {
			while (result.next()) {
				rows.add(result.getString(1));
			}
		}
		return rows;
	}

	private static void execute(String sql) throws SQLException {
		try (Connection connection = DriverManager.getConnection(DATABASE, "postgres", "");
				Statement statement = connection.createStatement()) {
			statement.execute(sql);
		}
	}

}
