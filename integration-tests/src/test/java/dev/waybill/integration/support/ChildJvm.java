package dev.waybill.integration.support;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A JVM of its own on the test's class path, for the tests that kill a process: a relay or a
 * service the test stops with SIGKILL or that halts itself.
 */
public final class ChildJvm {

	private ChildJvm() {
	}

	/**
	 * A process builder that runs {@code main} with the given system properties and arguments,
	 * its error output merged into its standard output.
	 * @param main the class whose main method the process runs
	 * @param systemProperties {@code name=value} pairs, passed as {@code -D} options
	 * @param arguments the main method's arguments
	 * @return the builder, not started
	 */
	public static ProcessBuilder builder(Class<?> main, List<String> systemProperties, String... arguments) {
		List<String> command = new ArrayList<>();
		command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
		// The child lives for seconds and shares the CPU with the tests: the top JIT tier would spend
		// it compiling for a peak the child never reaches, and slow its start-up.
		command.add("-XX:TieredStopAtLevel=1");
		systemProperties.forEach((property) -> command.add("-D" + property));
		command.add("-cp");
		command.add(System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")));
		command.add(main.getName());
		command.addAll(List.of(arguments));
		return new ProcessBuilder(command).redirectErrorStream(true);
	}

}
