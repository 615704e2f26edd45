package dev.waybill.outbox.test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;

/**
 * Where the servers a test starts for itself (a private PostgreSQL, a PgBouncer) keep their
 * files: under {@code target/}, or, when they run as the {@code postgres} user (the JVM runs as
 * root) and that user cannot reach {@code target/} (a checkout in a directory only root may
 * enter, such as one made by {@code mktemp -d}), in a directory of their own under the system's
 * temporary directory.
 */
final class ServerDirectories {

	private ServerDirectories() {
	}

	/**
	 * Creates a new directory for one server.
	 * @param prefix the start of its name, e.g. {@code "postgres-wal-"}
	 * @return the directory, which the server's user may write
	 */
	static Path create(String prefix) throws IOException, InterruptedException {
		Path target = Path.of("target").toAbsolutePath();
		Files.createDirectories(target);
		boolean asRoot = "root".equals(System.getProperty("user.name"));
		Path parent = (asRoot && !reachableByServerUser(target)) ? Path.of(System.getProperty("java.io.tmpdir")) : target;
		Path directory = Files.createTempDirectory(parent, prefix);
		if (asRoot) {
			Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwxrwxrwx"));
		}
		return directory;
	}

	/**
	 * Tells whether a directory of a test's own is outside {@code target/}, so that nothing but the
	 * test removes it.
	 * @param directory the directory
	 * @return whether it lies outside the module's {@code target/}
	 */
	static boolean outsideTarget(Path directory) {
		return !directory.startsWith(Path.of("target").toAbsolutePath());
	}

	private static boolean reachableByServerUser(Path directory) throws IOException, InterruptedException {
		Process check = new ProcessBuilder("runuser", "-u", PostgresBinaries.SERVER_USER, "--", "test", "-x",
				directory.toString()).redirectErrorStream(true).start();
		check.getInputStream().readAllBytes();
		return check.waitFor(30, TimeUnit.SECONDS) && check.exitValue() == 0;
	}

}
