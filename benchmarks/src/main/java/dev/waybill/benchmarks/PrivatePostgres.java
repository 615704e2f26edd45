package dev.waybill.benchmarks;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import dev.waybill.outbox.test.TestPostgres;

/**
 * A PostgreSQL server of the benchmark's own: a new cluster ({@code initdb}, trust authentication,
 * every other setting a default) in a directory under {@code benchmarks/target/}, on a free port of
 * 127.0.0.1, with one database, {@code bench}. WAL is written per cluster, so a figure read from
 * its WAL position counts the benchmark's work and no other database's. {@link #close()} stops the
 * server and removes the directory; the benchmark registers it with its {@link BenchContext}, whose
 * clean-up also runs on a failure and at JVM shutdown.
 */
final class PrivatePostgres implements AutoCloseable {

	/** Where the Debian/Ubuntu packages put the server's binaries. */
	static final Path BINARIES = Path.of("/usr/lib/postgresql/15/bin");

	/** initdb and the server refuse to run as root; they run as this user then. */
	private static final String SERVER_USER = "postgres";

	private static final String DATABASE = "bench";

	private final Path directory;

	private final int port;

	private final TestPostgres database;

	private PrivatePostgres(Path directory, int port) {
		this.directory = directory;
		this.port = port;
		this.database = TestPostgres.at("jdbc:postgresql://127.0.0.1:" + port + "/" + DATABASE, SERVER_USER, "",
				"private PostgreSQL 15 in " + directory);
	}

	/**
	 * Creates the cluster, starts the server and creates the database.
	 * @return the running server
	 * @throws IllegalStateException when a step fails, with its output; what was started is stopped
	 */
	static PrivatePostgres start() throws IOException, InterruptedException {
		Path parent = Path.of("benchmarks", "target").toAbsolutePath();
		Files.createDirectories(parent);
		Path directory = Files.createTempDirectory(parent, "wal-postgres-");
		PrivatePostgres server = new PrivatePostgres(directory, freePort());
		try {
			server.initAndStart();
			return server;
		}
		catch (IOException | InterruptedException | RuntimeException ex) {
			server.close();
			throw ex;
		}
	}

	/**
	 * The database, for {@link dev.waybill.outbox.test.TestSchema}s and connections.
	 * @return the {@code bench} database
	 */
	TestPostgres database() {
		return this.database;
	}

	int port() {
		return this.port;
	}

	private void initAndStart() throws IOException, InterruptedException {
		if (asRoot()) {
			run(List.of("chown", SERVER_USER, this.directory.toString()), false);
		}
		Path data = this.directory.resolve("data");
		run(List.of(BINARIES.resolve("initdb").toString(), "-D", data.toString(), "-U", SERVER_USER, "--auth=trust",
				"-E", "UTF8", "--no-instructions"), true);
		run(List.of(BINARIES.resolve("pg_ctl").toString(), "-D", data.toString(), "-l",
				this.directory.resolve("server.log").toString(), "-w", "-t", "60", "-o",
				"-p " + this.port + " -c listen_addresses=127.0.0.1 -c unix_socket_directories=" + this.directory, "start"),
				true);
		try (Connection connection = TestPostgres
			.at("jdbc:postgresql://127.0.0.1:" + this.port + "/postgres", SERVER_USER, "", "")
			.connect(); Statement statement = connection.createStatement()) {
			statement.execute("CREATE DATABASE " + DATABASE);
		}
		catch (java.sql.SQLException ex) {
			throw new IllegalStateException("Could not create database " + DATABASE + " on port " + this.port, ex);
		}
	}

	/** Stops the server (fast shutdown) if it runs, and removes its directory. */
	@Override
	public void close() {
		Path data = this.directory.resolve("data");
		try {
			if (Files.exists(data.resolve("postmaster.pid"))) {
				run(List.of(BINARIES.resolve("pg_ctl").toString(), "-D", data.toString(), "-m", "fast", "-w", "stop"), true);
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
		return "private PostgreSQL 15 on 127.0.0.1:" + this.port + " in " + this.directory;
	}

	private static void run(List<String> command, boolean asServerUser) throws IOException, InterruptedException {
		List<String> full = new ArrayList<>();
		if (asServerUser && asRoot()) {
			full.addAll(List.of("runuser", "-u", SERVER_USER, "--"));
		}
		full.addAll(command);
		Process process = new ProcessBuilder(full).redirectErrorStream(true).start();
		String output = new String(process.getInputStream().readAllBytes());
		if (!process.waitFor(120, TimeUnit.SECONDS) || process.exitValue() != 0) {
			process.destroy();
			throw new IllegalStateException(String.join(" ", full) + " failed: " + output);
		}
	}

	private static boolean asRoot() {
		return "root".equals(System.getProperty("user.name"));
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
		try (Stream<Path> paths = Files.walk(directory)) {
			for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
				Files.delete(path);
			}
		}
	}

}
