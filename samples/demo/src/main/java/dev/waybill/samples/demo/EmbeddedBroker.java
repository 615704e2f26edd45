package dev.waybill.samples.demo;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;

import org.apache.qpid.server.SystemLauncher;

/**
 * An in-memory AMQP 0-9-1 broker (Apache Qpid Broker-J) on a free port, user guest/guest, virtual
 * host {@code /}. Not RabbitMQ, and Waybill needs nothing RabbitMQ-only: no exchange-to-exchange
 * bindings, no dead-letter or TTL queue arguments.
 */
final class EmbeddedBroker implements AutoCloseable {

	private final SystemLauncher launcher;

	private final Path workDirectory;

	private final int port;

	private EmbeddedBroker(SystemLauncher launcher, Path workDirectory, int port) {
		this.launcher = launcher;
		this.workDirectory = workDirectory;
		this.port = port;
	}

	static EmbeddedBroker start() throws Exception {
		int port = freePort();
		Path work = Files.createTempDirectory("waybill-demo-broker");
		Path config = work.resolve("broker.json");
		try (InputStream in = Objects.requireNonNull(EmbeddedBroker.class.getResourceAsStream("/demo-broker.json"),
				"demo-broker.json is missing from the class path")) {
			Files.copy(in, config, StandardCopyOption.REPLACE_EXISTING);
		}
		Map<String, Object> attributes = new HashMap<>();
		attributes.put("type", "Memory");
		attributes.put("initialConfigurationLocation", config.toUri().toString());
		// Qpid's default is a classpath: URL, which a Spring Boot fat jar cannot resolve.
		attributes.put("initialSystemPropertiesLocation", Files.createFile(work.resolve("system.properties")).toUri().toString());
		attributes.put("startupLoggedToSystemOut", false);
		attributes.put("context", Map.of("qpid.amqp_port", String.valueOf(port), "qpid.work_dir", work.toString(),
				"QPID_WORK", work.toString()));
		SystemLauncher launcher = new SystemLauncher();
		try {
			launcher.startup(attributes);
		}
		catch (Exception ex) {
			delete(work);
			throw ex;
		}
		return new EmbeddedBroker(launcher, work, port);
	}

	int port() {
		return this.port;
	}

	@Override
	public void close() {
		this.launcher.shutdown();
		delete(this.workDirectory);
	}

	private static void delete(Path directory) {
		try (Stream<Path> files = Files.walk(directory)) {
			files.sorted(Comparator.reverseOrder()).forEach((file) -> file.toFile().delete());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

}
