package dev.waybill.integration.cluster;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The private 3-node RabbitMQ cluster of {@code scripts/rabbitmq-cluster}, with its files under
 * this module's {@code target/rabbitmq-cluster}. Never the machine's broker, nor another build's
 * cluster: each run picks free ports and node names of its own, so that two checkouts can run
 * their tests at once without stopping each other's nodes.
 */
final class RabbitCluster implements AutoCloseable {

	/** Where the first AMQP port is looked for; below Linux's ephemeral ports, as are the dist ports. */
	private static final int LOWEST_PORT = 10_000;

	private static final int PORT_CHOICES = 2_000;

	/** The script's distance between a node's AMQP port and its Erlang distribution port. */
	private static final int DIST_PORT_OFFSET = 20_000;

	private static final Pattern CONNECTION_NAME = Pattern.compile("\"connection_name\",(?:longstr,)?\"([^\"]*)\"");

	private final Path script;

	private final Path directory;

	private final int firstPort;

	private final String name;

	private RabbitCluster(Path script, Path directory, int firstPort, String name) {
		this.script = script;
		this.directory = directory;
		this.firstPort = firstPort;
		this.name = name;
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
		String name = "waybill-c" + UUID.randomUUID().toString().substring(0, 8) + "-";
		RabbitCluster cluster = new RabbitCluster(dir.resolve("scripts/rabbitmq-cluster"),
				Path.of("target", "rabbitmq-cluster").toAbsolutePath(), freePorts(), name);
		try {
			cluster.run(180, "start");
		}
		catch (RuntimeException ex) {
			// the nodes that did start would outlive the test
			try {
				cluster.close();
			}
			catch (RuntimeException stopFailure) {
				ex.addSuppressed(stopFailure);
			}
			throw ex;
		}
		return cluster;
	}

	/** A first AMQP port whose three ports and their dist ports are free now. */
	private static int freePorts() {
		Random random = new Random();
		for (int attempt = 0; attempt < 100; attempt++) {
			int first = LOWEST_PORT + random.nextInt(PORT_CHOICES);
			if (free(first) && free(first + 1) && free(first + 2) && free(first + DIST_PORT_OFFSET)
					&& free(first + 1 + DIST_PORT_OFFSET) && free(first + 2 + DIST_PORT_OFFSET)) {
				return first;
			}
		}
		throw new IllegalStateException("No three free ports for the RabbitMQ cluster from " + LOWEST_PORT);
	}

	private static boolean free(int port) {
		try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	String addresses() {
		return "127.0.0.1:" + port(1) + ",127.0.0.1:" + port(2) + ",127.0.0.1:" + port(3);
	}

	int port(int node) {
		return this.firstPort + node - 1;
	}

	/** The node (1-3) that listens on a port. */
	int node(int port) {
		return port - this.firstPort + 1;
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

	/** Runs {@code rabbitmqctl} against a node (1-3) and returns what it printed. */
	String ctl(int node, String... arguments) {
		List<String> command = new ArrayList<>(List.of("ctl", Integer.toString(node)));
		command.addAll(List.of(arguments));
		return run(60, command.toArray(String[]::new));
	}

	/**
	 * The node (1-3) of each client connection whose client-provided name is one of the given
	 * ones, by name, asked of a running node in one rabbitmqctl run.
	 */
	Map<String, List<Integer>> nodesOf(int askNode, String... connectionNames) {
		Map<String, List<Integer>> nodes = new HashMap<>();
		for (String connectionName : connectionNames) {
			nodes.put(connectionName, new ArrayList<>());
		}
		String listing = ctl(askNode, "list_connections", "-q", "port", "client_properties");
		for (String line : listing.split("\n")) {
			Matcher name = CONNECTION_NAME.matcher(line);
			if (name.find() && nodes.containsKey(name.group(1))) {
				nodes.get(name.group(1)).add(node(Integer.parseInt(line.trim().split("\\s+")[0])));
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
		builder.environment().put("WAYBILL_RABBIT_CLUSTER_PORT", Integer.toString(this.firstPort));
		builder.environment().put("WAYBILL_RABBIT_CLUSTER_NAME", this.name);
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
