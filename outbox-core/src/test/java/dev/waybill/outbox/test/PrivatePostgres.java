package dev.waybill.outbox.test;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * A PostgreSQL server of a test's or benchmark's own: a new cluster ({@code initdb}, trust
 * authentication, defaults but for the settings given) or a streaming standby of another
 * ({@code pg_basebackup -R}), in a directory of its own ({@link ServerDirectories}), on a free port of
 * 127.0.0.1. WAL is written per cluster, so a figure read from its WAL position counts its own
 * work only; a standby and its primary make a failover that a test controls. {@link #close()}
 * stops the server and removes the directory, and so does JVM exit.
 */
public final class PrivatePostgres implements AutoCloseable {

	/** The database every private server is made with. */
	public static final String DATABASE = "waybill";

	private final PostgresBinaries binaries;

	private final Path directory;

	private final int port;

	private final List<String> settings;

	private final Thread shutdownHook;

	private PrivatePostgres(PostgresBinaries binaries, Path directory, int port, List<String> settings) {
		this.binaries = binaries;
		this.directory = directory;
		this.port = port;
		this.settings = settings;
		this.shutdownHook = new Thread(this::stopAndRemove);
		Runtime.getRuntime().addShutdownHook(this.shutdownHook);
	}

	/**
	 * Creates a cluster under {@code target/}, starts it and creates the database {@link #DATABASE}.
	 * @param name what the server is for, a word in its directory's name
	 * @param settings server settings, {@code name=value}, beside the defaults
	 * @return the running server
	 * @throws IllegalStateException when a step fails, with its output; what was started is stopped
	 */
	public static PrivatePostgres start(String name, String... settings) throws IOException, InterruptedException {
		PrivatePostgres server = create(name, List.of(settings));
		try {
			server.binaries.run("initdb", List.of("-D", server.data().toString(), "-U", PostgresBinaries.SERVER_USER,
					"--auth=trust", "-E", "UTF8", "--no-instructions"));
			server.start();
			server.execute("CREATE DATABASE " + DATABASE);
			return server;
		}
		catch (IOException | InterruptedException | RuntimeException ex) {
			server.close();
			throw ex;
		}
	}

	/**
	 * Makes a streaming standby of a running server, from a base backup of it, and starts it.
	 * @param primary the server it replicates
	 * @param name what the standby is for, a word in its directory's name
	 * @param settings server settings, {@code name=value}, beside the defaults
	 * @return the running standby, in recovery
	 */
	public static PrivatePostgres standbyOf(PrivatePostgres primary, String name, String... settings)
			throws IOException, InterruptedException {
		PrivatePostgres server = create(name, List.of(settings));
		try {
			server.binaries.run("pg_basebackup", List.of("-h", "127.0.0.1", "-p", Integer.toString(primary.port), "-U",
					PostgresBinaries.SERVER_USER, "-D", server.data().toString(), "-R", "-X", "stream", "-c", "fast"));
			server.start();
			return server;
		}
		catch (IOException | InterruptedException | RuntimeException ex) {
			server.close();
			throw ex;
		}
	}

	private static PrivatePostgres create(String name, List<String> settings) throws IOException, InterruptedException {
		Path directory = ServerDirectories.create("postgres-" + name + "-");
		PostgresBinaries binaries = PostgresBinaries.find();
		binaries.own(directory);
		return new PrivatePostgres(binaries, directory, freePort(), settings);
	}

	/** Starts the server (again, after {@link #stop}), waiting until it accepts connections. */
	public void start() throws IOException, InterruptedException {
		StringBuilder options = new StringBuilder("-p " + this.port + " -c listen_addresses=127.0.0.1"
				+ " -c unix_socket_directories=" + this.directory);
		for (String setting : this.settings) {
			options.append(" -c ").append(setting);
		}
		this.binaries.run("pg_ctl", List.of("-D", data().toString(), "-l", this.directory.resolve("server.log").toString(),
				"-w", "-t", "60", "-o", options.toString(), "start"));
	}

	/**
	 * Stops the server.
	 * @param immediately {@literal true} to stop as a crash does (no checkpoint, connections cut),
	 * else a fast shutdown
	 */
	public void stop(boolean immediately) throws IOException, InterruptedException {
		this.binaries.run("pg_ctl", List.of("-D", data().toString(), "-m", immediately ? "immediate" : "fast", "-w", "stop"));
	}

	/** Promotes a standby to primary, waiting until it takes writes. */
	public void promote() throws IOException, InterruptedException {
		this.binaries.run("pg_ctl", List.of("-D", data().toString(), "-w", "-t", "60", "promote"));
	}

	/**
	 * Returns a database of this server.
	 * @param database its name
	 * @return the database, for {@link TestSchema}s and connections
	 */
	public TestPostgres database(String database) {
		return TestPostgres.at(url(database), PostgresBinaries.SERVER_USER, "", toString());
	}

	/**
	 * Returns the database {@link #DATABASE}.
	 * @return the database
	 */
	public TestPostgres database() {
		return database(DATABASE);
	}

	/**
	 * Returns the JDBC URL of a database of this server.
	 * @param database its name
	 * @return the URL
	 */
	public String url(String database) {
		return "jdbc:postgresql://127.0.0.1:" + this.port + "/" + database;
	}

	/**
	 * Returns the port the server listens on.
	 * @return the port
	 */
	public int port() {
		return this.port;
	}

	/**
	 * Runs statements in the {@code postgres} database, each in a transaction of its own.
	 * @param statements the statements
	 */
	public void execute(String... statements) {
		try (Connection connection = database("postgres").connect(); Statement statement = connection.createStatement()) {
			for (String sql : statements) {
				statement.execute(sql);
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException(String.join("; ", statements) + " failed on " + this + ": " + ex.getMessage(),
					ex);
		}
	}

	/**
	 * Runs a query that returns one value in the {@code postgres} database.
	 * @param sql the query
	 * @return the value, as text
	 */
	public String query(String sql) {
		try (Connection connection = database("postgres").connect(); Statement statement = connection.createStatement();
				ResultSet result = statement.executeQuery(sql)) {
			result.next();
			return result.getString(1);
		}
		catch (SQLException ex) {
			throw new IllegalStateException(sql + " failed on " + this + ": " + ex.getMessage(), ex);
		}
	}

	/** Stops the server (fast shutdown) if it runs, and removes its directory. */
	@Override
	public void close() {
		stopAndRemove();
		try {
			Runtime.getRuntime().removeShutdownHook(this.shutdownHook);
		}
		catch (IllegalStateException ex) {
			// the JVM is shutting down and runs the hook itself
		}
	}

	private void stopAndRemove() {
		try {
			if (Files.exists(data().resolve("postmaster.pid"))) {
				stop(false);
			}
			delete(this.directory);
		}
		catch (IOException | RuntimeException ex) {
			System.err.println("Could not stop or remove " + this + ": " + ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	@Override
	public String toString() {
		return "private PostgreSQL on 127.0.0.1:" + this.port + " in " + this.directory;
	}

	private Path data() {
		return this.directory.resolve("data");
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

	private static void delete(Path directory) throws IOException {
		if (!Files.exists(directory)) {
			return;
		}
		List<Path> paths = new ArrayList<>();
		try (Stream<Path> walk = Files.walk(directory)) {
			walk.sorted(Comparator.reverseOrder()).forEach(paths::add);
		}
		for (Path path : paths) {
			Files.deleteIfExists(path);
		}
	}

}
