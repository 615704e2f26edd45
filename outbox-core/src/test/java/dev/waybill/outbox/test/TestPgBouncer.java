package dev.waybill.outbox.test;

import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Assumptions;

/**
 * A PgBouncer of the test's own in front of {@link TestPostgres}, in {@code pool_mode = transaction}
 * with a small pool: each transaction of a client may run on another server connection, so nothing
 * of a session (a session advisory lock, {@code LISTEN}, a session {@code SET}, a named prepared
 * statement) carries from one transaction to the next. Started on a free port of 127.0.0.1 with its
 * files under {@code target/}, stopped by {@link #close()} and at JVM exit.
 * <p>
 * Needs the {@code pgbouncer} program (Debian: {@code apt-get install pgbouncer}). Without it the
 * test is skipped, except under CI ({@code CI=true}, or {@code WAYBILL_REQUIRE_PGBOUNCER=true} as
 * {@code .ci/run} sets), where it fails.
 */
public final class TestPgBouncer implements AutoCloseable {

	private static final Pattern SERVER = Pattern.compile("^jdbc:postgresql://([^:/,]+)(?::(\\d+))?/([^?]*)(.*)$");

	private static final List<String> PROGRAMS = List.of("/usr/sbin/pgbouncer", "/usr/bin/pgbouncer",
			"/usr/local/bin/pgbouncer");

	private final Process process;

	private final Path directory;

	private final int port;

	private final String database;

	private final Thread shutdownHook;

	private TestPgBouncer(Process process, Path directory, int port, String database) {
		this.process = process;
		this.directory = directory;
		this.port = port;
		this.database = database;
		this.shutdownHook = new Thread(this::stop);
		Runtime.getRuntime().addShutdownHook(this.shutdownHook);
	}

	/**
	 * Starts a PgBouncer in transaction mode in front of the test database.
	 * @param poolSize the most server connections it opens per database and user ({@code default_pool_size})
	 * @return the running pooler
	 */
	public static TestPgBouncer start(int poolSize) {
		String program = program();
		Matcher server = SERVER.matcher(TestPostgres.get().url());
		if (!server.matches()) {
			throw new IllegalStateException("Cannot tell the host and port of " + TestPostgres.get());
		}
		String host = server.group(1);
		int serverPort = (server.group(2) != null) ? Integer.parseInt(server.group(2)) : 5432;
		try {
			int port = freePort();
			Path directory = ServerDirectories.create("pgbouncer-" + port + "-");
			Files.writeString(directory.resolve("users.txt"),
					"\"" + TestPostgres.get().user() + "\" \"" + TestPostgres.get().password() + "\"\n");
			Files.writeString(directory.resolve("pgbouncer.ini"), String.join("\n", "[databases]",
					"* = host=" + host + " port=" + serverPort, "", "[pgbouncer]", "listen_addr = 127.0.0.1",
					"listen_port = " + port, "unix_socket_dir =", "auth_type = trust",
					"auth_file = " + directory.resolve("users.txt"), "pool_mode = transaction",
					"default_pool_size = " + poolSize, "max_client_conn = 500",
					// pgjdbc sends these at start-up; PgBouncer refuses a client with parameters it does not know.
					"ignore_startup_parameters = extra_float_digits,options", "server_reset_query =",
					"pidfile = " + directory.resolve("pgbouncer.pid"), "") + "\n");
			// PgBouncer refuses to run as root; the Debian package's postgres user then runs it.
			boolean root = "root".equals(System.getProperty("user.name"));
			if (root) {
				for (String file : List.of("users.txt", "pgbouncer.ini")) {
					Files.setPosixFilePermissions(directory.resolve(file), PosixFilePermissions.fromString("rw-rw-rw-"));
				}
			}
			ProcessBuilder builder = root ? new ProcessBuilder(program, "-u", "postgres", "pgbouncer.ini")
					: new ProcessBuilder(program, "pgbouncer.ini");
			File log = directory.resolve("pgbouncer.log").toFile();
			Process process = builder.directory(directory.toFile()).redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.appendTo(log)).start();
			TestPgBouncer pooler = new TestPgBouncer(process, directory, port, server.group(3));
			pooler.awaitListening(log.toPath());
			return pooler;
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not start PgBouncer: " + ex.getMessage(), ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while starting PgBouncer", ex);
		}
	}

	private static String program() {
		for (String candidate : PROGRAMS) {
			if (new File(candidate).canExecute()) {
				return candidate;
			}
		}
		String missing = "PgBouncer is not installed (Debian: apt-get install pgbouncer)";
		if ("true".equalsIgnoreCase(System.getenv("CI"))
				|| "true".equalsIgnoreCase(System.getenv("WAYBILL_REQUIRE_PGBOUNCER"))) {
			throw new IllegalStateException(missing + "; under CI the tests through a pooler must run");
		}
		if (!onJUnit()) { // a benchmark, which cannot be skipped
			throw new IllegalStateException(missing);
		}
		Assumptions.abort(missing);
		throw new AssertionError("unreachable");
	}

	private static boolean onJUnit() {
		try {
			Class.forName("org.junit.jupiter.api.Assumptions", false, TestPgBouncer.class.getClassLoader());
			return true;
		}
		catch (ClassNotFoundException ex) {
			return false;
		}
	}

	private void awaitListening(Path log) throws IOException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
		while (System.nanoTime() < deadline) {
			if (!this.process.isAlive()) {
				throw new IllegalStateException("PgBouncer exited with " + this.process.exitValue() + ": "
						+ Files.readString(log, StandardCharsets.UTF_8));
			}
			try (Socket socket = new Socket()) {
				socket.connect(new InetSocketAddress("127.0.0.1", this.port), 200);
				return;
			}
			catch (IOException ex) {
				Thread.onSpinWait();
			}
		}
		stop();
		throw new IllegalStateException("PgBouncer did not listen on " + this.port + " within 20 s: "
				+ Files.readString(log, StandardCharsets.UTF_8));
	}

	/**
	 * Returns the JDBC URL of the test database through the pooler, with {@code prepareThreshold=0}
	 * so that the driver names no server-side prepared statement (PgBouncer before 1.21 cannot keep
	 * them apart across clients).
	 * @return the URL
	 */
	public String url() {
		return url(this.database);
	}

	/**
	 * Returns the JDBC URL of a database of the test server through the pooler.
	 * @param database the database's name
	 * @return the URL, with {@code prepareThreshold=0}
	 */
	public String url(String database) {
		return "jdbc:postgresql://127.0.0.1:" + this.port + "/" + database + "?prepareThreshold=0";
	}

	/**
	 * Returns the port the pooler listens on.
	 * @return the port
	 */
	public int port() {
		return this.port;
	}

	/**
	 * Opens a connection pool of its own through the pooler; the caller closes it.
	 * @param name the pool's name
	 * @param maximumSize the most client connections it holds
	 * @return the pool
	 */
	public HikariDataSource pool(String name, int maximumSize) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(url());
		config.setUsername(TestPostgres.get().user());
		config.setPassword(TestPostgres.get().password());
		config.setMaximumPoolSize(maximumSize);
		config.setMinimumIdle(1);
		config.setPoolName(name);
		return new HikariDataSource(config);
	}

	@Override
	public void close() {
		stop();
		Runtime.getRuntime().removeShutdownHook(this.shutdownHook);
	}

	private void stop() {
		this.process.destroy();
		try {
			if (!this.process.waitFor(10, TimeUnit.SECONDS)) {
				this.process.destroyForcibly();
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		if (ServerDirectories.outsideTarget(this.directory)) {
			// Nothing else cleans the system's temporary directory; under target/ the log stays for a look.
			try (java.util.stream.Stream<Path> files = Files.walk(this.directory)) {
				files.sorted(java.util.Comparator.reverseOrder()).forEach((file) -> file.toFile().delete());
			}
			catch (IOException ex) {
				System.err.println("Could not remove " + this.directory + ": " + ex);
			}
		}
	}

	@Override
	public String toString() {
		return "PgBouncer (transaction pooling) on 127.0.0.1:" + this.port + " in front of " + TestPostgres.get()
				+ ", files in " + this.directory.getFileName();
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
	}

}
