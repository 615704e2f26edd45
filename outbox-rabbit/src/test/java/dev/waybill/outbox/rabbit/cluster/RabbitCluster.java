package dev.waybill.outbox.rabbit.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The private 3-node RabbitMQ cluster of {@code scripts/rabbitmq-cluster}, on ports 5681-5683,
 * with its files under this module's {@code target/rabbitmq-cluster}. Never the machine's broker.
 */
final class RabbitCluster implements AutoCloseable {

	static final int FIRST_PORT = 5681;

	private static final Pattern CONNECTION_NAME = Pattern.compile("\"connection_name\",(?:longstr,)?\"([^\"]*)\"");

	private final Path script;

	private final Path directory;

	private RabbitCluster(Path script, Path directory) {
		this.script = script;
		this.directory = directory;
	}

	/**
	 * Whether RabbitMQ's server is installed here, so that the cluster test must run.
	 */
	static boolean serverInstalled() {
		try (var dirs = Files.newDirectoryStream(Path.of("/usr/lib/rabbitmq/lib"), "rabbitmq_server-*")) {
			for (Path dir : dirs) {
				if (Files.isExecutable(dir.resolve("sbin/rabbitmq-server"))) {
					return true;
				}
			}
		}
		catch (IOException ex) {
			// not in the package's place: look on the PATH
		}
		for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
			if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, "rabbitmq-server"))) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Starts the three nodes and joins them; fails with the script's output when it cannot.
	 */
	static RabbitCluster start() {
		Path dir = Path.of("").toAbsolutePath();
		while (dir != null && !Files.isExecutable(dir.resolve("scripts/rabbitmq-cluster"))) {
			dir = dir.getParent();
		}
		if (dir == null) {
			throw new IllegalStateException("scripts/rabbitmq-cluster not found above " + Path.of("").toAbsolutePath());
		}
		RabbitCluster cluster = new RabbitCluster(dir.resolve("scripts/rabbitmq-cluster"),
				Path.of("target", "rabbitmq-cluster").toAbsolutePath());
		cluster.run(180, "start");
		return cluster;
	}

	String addresses() {
		return "127.0.0.1:" + port(1) + ",127.0.0.1:" + port(2) + ",127.0.0.1:" + port(3);
	}

	static int port(int node) {
		return FIRST_PORT + node - 1;
	}

	/** The node (1-3) that listens on a port. */
	static int node(int port) {
		return port - FIRST_PORT + 1;
	}

	void stopNode(int node) {
		run(60, "stop-node", Integer.toString(node));
	}

	void killNode(int node) {
		run(30, "kill-node", Integer.toString(node));
	}

	void startNode(int node) {
		run(120, "start-node", Integer.toString(node));
	}

	/**
	 * The node (1-3) of each client connection whose client-provided name is the given one,
	 * asked of a running node.
	 */
	List<Integer> nodesOf(String connectionName, int askNode) {
		List<Integer> nodes = new ArrayList<>();
		String listing = run(60, "ctl", Integer.toString(askNode), "list_connections", "-q", "port",
				"client_properties");
		for (String line : listing.split("\n")) {
			Matcher name = CONNECTION_NAME.matcher(line);
			if (name.find() && name.group(1).equals(connectionName)) {
				nodes.add(node(Integer.parseInt(line.trim().split("\\s+")[0])));
			}
		}
		return nodes;
	}

	@Override
	public void close() {
		run(120, "stop");
	}

	private String run(int seconds, String... arguments) {
		List<String> command = new ArrayList<>();
		command.add(this.script.toString());
		command.addAll(List.of(arguments));
		ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
		builder.environment().put("WAYBILL_RABBIT_CLUSTER_DIR", this.directory.toString());
		builder.environment().put("WAYBILL_RABBIT_CLUSTER_PORT", Integer.toString(FIRST_PORT));
		try {
			Process process = builder.start();
			byte[] output = process.getInputStream().readAllBytes();
			if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
				process.destroyForcibly();
				throw new IllegalStateException(command + " did not finish within " + seconds + "s");
			}
			String text = new String(output, StandardCharsets.UTF_8);
			if (process.exitValue() != 0) {
				throw new IllegalStateException(command + " failed (exit " + process.exitValue() + "):\n" + text);
			}
			return text;
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not run " + command, ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted running " + command, ex);
		}
	}

}
