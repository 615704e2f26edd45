package dev.waybill.outbox.test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The PostgreSQL 15 server programs ({@code initdb}, {@code pg_ctl}, {@code pg_basebackup}) for
 * servers a test or benchmark starts for itself: from {@code WAYBILL_POSTGRES_BIN}, else where the
 * Debian and Ubuntu packages put them. They refuse to run as root; under root they run as the
 * packages' {@code postgres} user.
 */
public final class PostgresBinaries {

	/** The user the server programs run as when the JVM runs as root. */
	public static final String SERVER_USER = "postgres";

	private static final Path PACKAGED = Path.of("/usr/lib/postgresql/15/bin");

	private final Path directory;

	private PostgresBinaries(Path directory) {
		this.directory = directory;
	}

	/**
	 * Finds the programs.
	 * @return the programs
	 * @throws IllegalStateException when they are not there, saying where they were looked for
	 */
	public static PostgresBinaries find() {
		String configured = System.getenv("WAYBILL_POSTGRES_BIN");
		Path directory = (configured != null && !configured.isBlank()) ? Path.of(configured) : PACKAGED;
		if (!Files.isExecutable(directory.resolve("pg_ctl"))) {
			throw new IllegalStateException("No PostgreSQL server programs in " + directory
					+ " (Debian: apt-get install postgresql-15; or set WAYBILL_POSTGRES_BIN)");
		}
		return new PostgresBinaries(directory);
	}

	/**
	 * Runs one of the programs to its end.
	 * @param program its name, e.g. {@code "initdb"}
	 * @param arguments its arguments
	 * @return what it printed
	 * @throws IllegalStateException when it fails or takes over two minutes, with its output
	 */
	public String run(String program, List<String> arguments) throws IOException, InterruptedException {
		List<String> command = new ArrayList<>();
		command.add(this.directory.resolve(program).toString());
		command.addAll(arguments);
		return runAsServerUser(command);
	}

	/**
	 * Makes a directory the server programs can write when they run as {@link #SERVER_USER}.
	 * @param directory the directory, which exists
	 */
	public void own(Path directory) throws IOException, InterruptedException {
		if (asRoot()) {
			execute(List.of("chown", "-R", SERVER_USER, directory.toString()));
		}
	}

	private static String runAsServerUser(List<String> command) throws IOException, InterruptedException {
		List<String> full = new ArrayList<>();
		if (asRoot()) {
			full.addAll(List.of("runuser", "-u", SERVER_USER, "--"));
		}
		full.addAll(command);
		return execute(full);
	}

	private static String execute(List<String> command) throws IOException, InterruptedException {
		Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
		String output = new String(process.getInputStream().readAllBytes());
		if (!process.waitFor(120, TimeUnit.SECONDS) || process.exitValue() != 0) {
			process.destroyForcibly();
			throw new IllegalStateException(String.join(" ", command) + " failed: " + output);
		}
		return output;
	}

	private static boolean asRoot() {
		return "root".equals(System.getProperty("user.name"));
	}

}
