package dev.waybill.outbox.test;

import java.net.InetSocketAddress;
import java.net.Socket;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * The PostgreSQL the tests run against, found once per JVM: the JDBC URL in
 * {@code WAYBILL_TEST_JDBC_URL} (with {@code WAYBILL_TEST_JDBC_USER} and
 * {@code WAYBILL_TEST_JDBC_PASSWORD}), else database {@code test} on 127.0.0.1:5432 as
 * {@code postgres}, else a Testcontainers PostgreSQL when a Docker engine is running. Without any
 * of them the tests fail with a message that says how to provide one; they are never skipped.
 */
public final class TestPostgres {

	private static volatile TestPostgres instance;

	private final String url;

	private final String user;

	private final String password;

	private final String origin;

	private TestPostgres(String url, String user, String password, String origin) {
		this.url = url;
		this.user = user;
		this.password = password;
		this.origin = origin;
	}

	/**
	 * Returns the test database, finding it on first use.
	 * @return the database
	 */
	public static TestPostgres get() {
		if (instance == null) {
			synchronized (TestPostgres.class) {
				if (instance == null) {
					instance = find();
				}
			}
		}
		return instance;
	}

	/**
	 * Returns a database found by other means than {@link #get()}, e.g. a server a benchmark
	 * started for itself.
	 * @param url its JDBC URL
	 * @param user the user
	 * @param password the password, empty for none
	 * @param origin where it comes from, shown by {@link #toString()}
	 * @return the database
	 */
	public static TestPostgres at(String url, String user, String password, String origin) {
		return new TestPostgres(url, user, password, origin);
	}

	public String url() {
		return this.url;
	}

	public String user() {
		return this.user;
	}

	public String password() {
		return this.password;
	}

	/**
	 * Opens a new connection, outside any pool.
	 * @return the connection
	 * @throws SQLException when the database refuses it
	 */
	public Connection connect() throws SQLException {
		return DriverManager.getConnection(this.url, this.user, this.password);
	}

	/**
	 * Opens a connection pool of its own; the caller closes it.
	 * @param name the pool's name, shown in its threads and logs
	 * @param maximumSize the most connections it holds
	 * @return the pool
	 */
	public HikariDataSource pool(String name, int maximumSize) {
		return new HikariDataSource(config(name, maximumSize));
	}

	/**
	 * Opens a connection pool of its own that hands out connections with auto-commit off, as
	 * Spring Boot's {@code spring.datasource.hikari.auto-commit=false} does; the caller closes it.
	 * @param name the pool's name, shown in its threads and logs
	 * @param maximumSize the most connections it holds
	 * @return the pool
	 */
	public HikariDataSource manualCommitPool(String name, int maximumSize) {
		HikariConfig config = config(name, maximumSize);
		config.setAutoCommit(false);
		return new HikariDataSource(config);
	}

	private HikariConfig config(String name, int maximumSize) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(this.url);
		config.setUsername(this.user);
		config.setPassword(this.password);
		config.setMaximumPoolSize(maximumSize);
		// Connections open as a test needs them: test classes run side by side in several JVMs,
		// and pools kept full would exhaust the server's max_connections.
		config.setMinimumIdle(1);
		config.setPoolName(name);
		return config;
	}

	@Override
	public String toString() {
		return this.url + " (" + this.origin + ")";
	}

	private static TestPostgres find() {
		String url = System.getenv("WAYBILL_TEST_JDBC_URL");
		if (url != null && !url.isBlank()) {
			return new TestPostgres(url, env("WAYBILL_TEST_JDBC_USER", "postgres"), env("WAYBILL_TEST_JDBC_PASSWORD", ""),
					"WAYBILL_TEST_JDBC_URL");
		}
		if (reachable("127.0.0.1", 5432)) {
			return new TestPostgres("jdbc:postgresql://127.0.0.1:5432/test", "postgres", "", "local PostgreSQL");
		}
		if (dockerAvailable()) {
			PostgreSQLContainer container = new PostgreSQLContainer("postgres:16-alpine");
			container.start();
			Runtime.getRuntime().addShutdownHook(new Thread(container::stop));
			return new TestPostgres(container.getJdbcUrl(), container.getUsername(), container.getPassword(),
					"Testcontainers");
		}
		throw new IllegalStateException("No PostgreSQL for the tests. Provide one of: "
				+ "WAYBILL_TEST_JDBC_URL=jdbc:postgresql://host:port/db (with WAYBILL_TEST_JDBC_USER and "
				+ "WAYBILL_TEST_JDBC_PASSWORD); a PostgreSQL on 127.0.0.1:5432 with database 'test' and user "
				+ "'postgres' (e.g. pg_ctlcluster <version> main start); or a running Docker engine for Testcontainers.");
	}

	private static String env(String name, String fallback) {
		String value = System.getenv(name);
		return value != null ? value : fallback;
	}

	private static boolean reachable(String host, int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(host, port), 1000);
			return true;
		}
		catch (Exception ex) {
			return false;
		}
	}

	private static boolean dockerAvailable() {
		try {
			return DockerClientFactory.instance().isDockerAvailable();
		}
		catch (Throwable ex) {
			return false;
		}
	}

}
