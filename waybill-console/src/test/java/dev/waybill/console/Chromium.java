package dev.waybill.console;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

/**
 * Finds headless Chromium and its driver for the browser tests: {@code WAYBILL_CHROMIUM} and
 * {@code WAYBILL_CHROMEDRIVER}, else the Debian packages' {@code chromium} and {@code chromedriver}
 * on the PATH. When they are missing and this runs as root with apt-get, it installs the Debian
 * packages {@code chromium} and {@code chromium-driver} (as {@code .ci/run} does), unless
 * {@code WAYBILL_INSTALL_CHROMIUM=false}.
 */
record Chromium(Path browser, Path driver) {

	private static final List<String> BROWSERS = List.of("chromium", "chromium-browser", "google-chrome");

	/**
	 * Returns Chromium, or why there is none.
	 */
	static Found find() {
		Optional<Chromium> found = locate();
		if (found.isPresent()) {
			return new Found(found.get(), null);
		}
		String installProblem = install();
		found = locate();
		if (found.isPresent()) {
			return new Found(found.get(), null);
		}
		return new Found(null, "Headless Chromium and chromedriver were not found (set WAYBILL_CHROMIUM and "
				+ "WAYBILL_CHROMEDRIVER, or install the Debian packages chromium and chromium-driver) and could not be "
				+ "installed: " + installProblem);
	}

	private static Optional<Chromium> locate() {
		Path browser = fromEnv("WAYBILL_CHROMIUM");
		if (browser == null) {
			browser = BROWSERS.stream().map(Chromium::onPath).filter((path) -> path != null).findFirst().orElse(null);
		}
		Path driver = fromEnv("WAYBILL_CHROMEDRIVER");
		if (driver == null) {
			driver = onPath("chromedriver");
		}
		return (browser != null && driver != null) ? Optional.of(new Chromium(browser, driver)) : Optional.empty();
	}

	private static String install() {
		if ("false".equalsIgnoreCase(System.getenv("WAYBILL_INSTALL_CHROMIUM"))) {
			return "WAYBILL_INSTALL_CHROMIUM=false";
		}
		if (onPath("apt-get") == null) {
			return "no apt-get";
		}
		if (!"root".equals(System.getProperty("user.name"))) {
			return "not root (run: sudo apt-get install -y chromium chromium-driver)";
		}
		try {
			Process process = new ProcessBuilder("apt-get", "install", "-y", "-q", "chromium", "chromium-driver")
				.redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.DISCARD)
				.start();
			if (!process.waitFor(10, TimeUnit.MINUTES)) {
				process.destroyForcibly();
				return "apt-get install timed out";
			}
			return (process.exitValue() == 0) ? "installed, yet not found" : "apt-get install exited with " + process.exitValue();
		}
		catch (IOException ex) {
			return ex.toString();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return "interrupted";
		}
	}

	private static @Nullable Path fromEnv(String name) {
		String value = System.getenv(name);
		return (value != null && Files.isExecutable(Path.of(value))) ? Path.of(value) : null;
	}

	private static @Nullable Path onPath(String command) {
		String path = System.getenv("PATH");
		if (path == null) {
			return null;
		}
		for (String directory : path.split(File.pathSeparator)) {
			Path candidate = Path.of(directory, command);
			if (Files.isExecutable(candidate)) {
				return candidate;
			}
		}
		return null;
	}

	record Found(@Nullable Chromium chromium, @Nullable String problem) {
	}

}
