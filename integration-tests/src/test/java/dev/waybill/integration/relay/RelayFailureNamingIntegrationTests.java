package dev.waybill.integration.relay;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;

import dev.waybill.kernel.RelayWakeUp;
import dev.waybill.kernel.TimeOrderedUuids;
import dev.waybill.kernel.WaybillMdc;
import dev.waybill.outbox.RetryPolicy;
import dev.waybill.outbox.rabbit.test.CapturedLogs;
import dev.waybill.outbox.rabbit.test.TestRabbit;
import dev.waybill.outbox.rabbit.test.TestTopology;
import dev.waybill.outbox.rabbit.test.TestTopology.BoundQueue;
import dev.waybill.outbox.relay.CircuitState;
import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.outbox.spi.OutboxScope;
import dev.waybill.outbox.spi.Transport;
import dev.waybill.outbox.test.TestMessages;
import dev.waybill.outbox.test.TestOutbox;
import dev.waybill.outbox.test.TestRelay;
import dev.waybill.outbox.test.TestSchema;

/**
 * Relay failures are named for what they are: a refused permission as a permission problem that an
 * operator's grant fixes, a scope's first failure at WARN rate-limited per destination, and a
 * published scope keeps no stale error. The permission tests use a vhost and user of their own,
 * made and removed with {@code rabbitmqctl}.
 */
class RelayFailureNamingIntegrationTests {

	private static final RetryPolicy QUICK_RETRIES = new RetryPolicy(RetryPolicy.Strategy.FIXED, Duration.ofMillis(300), 1,
			Duration.ofMillis(300), 1000, 0);

	private final List<AutoCloseable> resources = new ArrayList<>();

	private final ListAppender<ILoggingEvent> settlerLog = new ListAppender<>();

	private final Logger settlerLogger = (Logger) LoggerFactory.getLogger("dev.waybill.outbox.internal.relay.Settler");

	private final Logger relayLogger = (Logger) LoggerFactory.getLogger(TestRelay.LOGGER_NAME);

	private TestSchema schema;

	private TestOutbox outbox;

	private String vhost;

	private String user;

	@BeforeEach
	void setUp() {
		this.schema = TestSchema.withWaybillTables("relaynaming");
		this.outbox = TestOutbox.on(this.schema);
		this.settlerLog.start();
		this.settlerLogger.addAppender(this.settlerLog);
		this.relayLogger.addAppender(this.settlerLog);
	}

	@AfterEach
	void tearDown() throws Exception {
		for (int i = this.resources.size() - 1; i >= 0; i--) {
			this.resources.get(i).close();
		}
		this.settlerLogger.detachAppender(this.settlerLog);
		this.relayLogger.detachAppender(this.settlerLog);
		if (this.vhost != null) {
			rabbitmqctl("delete_vhost", this.vhost);
		}
		if (this.user != null) {
			rabbitmqctl("delete_user", this.user);
		}
		this.schema.close();
	}

	@Test
	void aMissingConfigurePermissionIsLoggedAsSuchRetriedWithoutOpeningTheCircuitAndDeliveredOnceGranted() throws Exception {
		// may not declare anything
		assertRefusedUntilGranted("orders", "configure permission", "^$", ".*");
	}

	@Test
	void aMissingWritePermissionIsLoggedAsSuchRetriedWithoutOpeningTheCircuitAndDeliveredOnceGranted() throws Exception {
		// may declare, may not publish
		assertRefusedUntilGranted("billing", "write permission", ".*", "^$");
	}

	private void assertRefusedUntilGranted(String role, String missing, String configure, String write)
			throws Exception {
		String exchange = "waybill-test.perm." + role + "." + UUID.randomUUID().toString().substring(0, 8);
		permissionVhost(configure, write, ".*");
		String queue = declareAsAdmin(exchange);
		TestRelay relay = start(transportAsTestUser());
		this.outbox.writer().write(scopeForMessageType(exchange, "refused until granted"));

		ILoggingEvent line = awaitLogLine("Permission refused");
		assertThat(line.getLevel()).isEqualTo(Level.WARN);
		assertThat(line.getFormattedMessage()).contains("user '" + this.user + "'", "vhost '" + this.vhost + "'",
				"exchange '" + exchange + "'", missing).doesNotContain("unreachable");
		awaitAttempts(3);
		assertThat(relay.circuitState()).isEqualTo(CircuitState.CLOSED);
		assertThat(this.outbox.store().stats().deadScopes()).isZero();
		assertThat(this.settlerLog.list).extracting(ILoggingEvent::getFormattedMessage)
			.noneMatch((message) -> message.contains("broker unavailable"));

		rabbitmqctl("set_permissions", "-p", this.vhost, this.user, ".*", ".*", ".*");

		assertThat(awaitMessage(queue)).isEqualTo("refused until granted");
		await().until(() -> this.outbox.store().stats().pendingScopes() == 0);
		assertThat(this.outbox.store().stats().deadScopes()).isZero();
		assertThat(state().get("status")).isEqualTo("published");
		assertThat(state().get("last_error")).isNull();
	}

	@Test
	void aScopesFirstFailureIsLoggedAtWarnOncePerDestinationAndItsDeathAtError() throws Exception {
		TestTopology topology = TestRabbit.get().topology("naming");
		this.resources.add(topology);
		String unroutable = topology.exchange("fanout");
		String otherUnroutable = topology.exchange("fanout");
		RetryPolicy twoAttempts = new RetryPolicy(RetryPolicy.Strategy.FIXED, Duration.ofMillis(200), 1,
				Duration.ofMillis(200), 2, 0);
		CapturedLogs logs = CapturedLogs.capture(Level.WARN, "dev.waybill.outbox.internal.relay.Settler");
		this.resources.add(logs);
		start(TestRabbit.get().transport().build(), twoAttempts);
		Map<String, OutboxMessage> firstMessageByScope = new java.util.HashMap<>();
		for (int i = 0; i < 5; i++) {
			OutboxScope scope = TestMessages.scope(unroutable, "nobody listens " + i);
			firstMessageByScope.put(scope.id().toString(), scope.messages().get(0));
			this.outbox.writer().write(scope);
		}
		OutboxScope other = TestMessages.scope(otherUnroutable, "nobody listens either");
		firstMessageByScope.put(other.id().toString(), other.messages().get(0));
		this.outbox.writer().write(other);

		// A scope's death is logged after its row is marked dead: await the sixth line too.
		await().until(() -> this.outbox.store().stats().deadScopes() == 6 && logs.events().stream()
			.filter((event) -> event.getFormattedMessage().contains("is dead after"))
			.count() == 6);

		// each line names, in the MDC, the scope and message it is about
		List<ILoggingEvent> lines = logs.events().stream()
			.filter((event) -> event.getFormattedMessage().contains("failed its first delivery attempt")
					|| event.getFormattedMessage().contains("is dead after"))
			.toList();
		assertThat(lines).hasSize(8).allSatisfy((event) -> {
			Map<String, String> mdc = event.getMDCPropertyMap();
			OutboxMessage message = firstMessageByScope.get(mdc.get(WaybillMdc.SCOPE_ID));
			assertThat(message).as("scope in the MDC of '%s'", event.getFormattedMessage()).isNotNull();
			assertThat(event.getFormattedMessage()).contains(mdc.get(WaybillMdc.SCOPE_ID));
			assertThat(mdc).containsEntry(WaybillMdc.MESSAGE_ID, message.messageId().toString())
				.containsEntry(WaybillMdc.MESSAGE_TYPE, message.messageType());
		});

		List<ILoggingEvent> firstFailures = this.settlerLog.list.stream()
			.filter((event) -> event.getFormattedMessage().contains("failed its first delivery attempt"))
			.toList();
		assertThat(firstFailures).extracting(ILoggingEvent::getLevel).containsOnly(Level.WARN);
		assertThat(firstFailures).as("one line per destination and minute, not one per scope")
			.filteredOn((event) -> event.getFormattedMessage().contains("'" + unroutable + "'"))
			.hasSize(1)
			.allSatisfy((event) -> assertThat(event.getFormattedMessage()).contains("unroutable"));
		assertThat(firstFailures).filteredOn((event) -> event.getFormattedMessage().contains("'" + otherUnroutable + "'"))
			.hasSize(1);
		assertThat(this.settlerLog.list).filteredOn((event) -> event.getFormattedMessage().contains("is dead after"))
			.hasSize(6)
			.extracting(ILoggingEvent::getLevel)
			.containsOnly(Level.ERROR);
	}

	@Test
	void aScopePublishedAfterAFailedAttemptKeepsNoLastError() throws Exception {
		TestTopology topology = TestRabbit.get().topology("naming");
		this.resources.add(topology);
		String exchange = topology.exchange("fanout"); // no queue yet: unroutable
		start(TestRabbit.get().transport().build(), QUICK_RETRIES);
		this.outbox.writer().write(TestMessages.scope(exchange, "second time lucky"));
		await().until(() -> state().get("last_error") != null);
		assertThat((String) state().get("last_error")).contains("unroutable");

		BoundQueue queue = topology.bind(exchange, "");

		assertThat(new String(queue.next().getBody(), StandardCharsets.UTF_8)).isEqualTo("second time lucky");
		await().until(() -> "published".equals(state().get("status")));
		assertThat(state().get("last_error")).isNull();
		assertThat((Integer) state().get("attempts")).isGreaterThan(1);
	}

	private TestRelay start(Transport transport) {
		return start(transport, QUICK_RETRIES);
	}

	private TestRelay start(Transport transport, RetryPolicy retry) {
		RelayWakeUp wakeUp = new RelayWakeUp();
		TestRelay relay = TestRelay.builder(this.outbox.store(), transport)
			.wakeUp(wakeUp)
			.settings(1, 10, Duration.ofSeconds(12), Duration.ofMillis(100), Duration.ofSeconds(2), retry, 2,
					Duration.ofMillis(500))
			.build();
		this.resources.add(transport);
		this.resources.add(relay);
		relay.start();
		wakeUp.signal();
		return relay;
	}

	/** How {@code OutboxPublisher.publish} addresses a message: to the exchange of its type, declared on first use. */
	private static OutboxScope scopeForMessageType(String exchange, String body) {
		OutboxMessage message = new OutboxMessage(TimeOrderedUuids.next(), exchange, "", exchange, "text/plain",
				Map.of(), body.getBytes(StandardCharsets.UTF_8), null, null, "test-host", Instant.now(), null);
		return new OutboxScope(UUID.randomUUID(), List.of(message), null, null);
	}

	/**
	 * A vhost and user of this test's own; the test user gets the given permissions, the admin
	 * user all (to declare the queue this test reads).
	 */
	private void permissionVhost(String configure, String write, String read) throws Exception {
		rabbitmqctl("list_users"); // fails the test, with the reason, when rabbitmqctl cannot be used here
		String suffix = UUID.randomUUID().toString().substring(0, 8);
		this.vhost = "waybill-test-perm-" + suffix;
		rabbitmqctl("add_vhost", this.vhost);
		this.user = "waybill-test-perm-" + suffix;
		rabbitmqctl("add_user", this.user, "secret-" + suffix);
		rabbitmqctl("set_permissions", "-p", this.vhost, TestRabbit.get().username(), ".*", ".*", ".*");
		rabbitmqctl("set_permissions", "-p", this.vhost, this.user, configure, write, read);
	}

	private Transport transportAsTestUser() {
		return TestRabbit.get().transport().customizer((factory) -> {
			factory.setVirtualHost(this.vhost);
			factory.setUsername(this.user);
			factory.setPassword("secret-" + this.vhost.substring("waybill-test-perm-".length()));
		}).build();
	}

	/** Declares the exchange (as the relay would: durable fanout) and a queue bound to it, as the admin user. */
	private String declareAsAdmin(String exchange) throws Exception {
		Channel channel = adminChannel();
		channel.exchangeDeclare(exchange, "fanout", true);
		String queue = channel.queueDeclare(exchange + ".queue", false, false, false, null).getQueue();
		channel.queueBind(queue, exchange, "");
		return queue;
	}

	private Channel adminChannel() throws Exception {
		ConnectionFactory factory = TestRabbit.get().connectionFactory();
		factory.setVirtualHost(this.vhost);
		Connection connection = factory.newConnection("waybill-test-admin");
		this.resources.add(connection);
		return connection.createChannel();
	}

	private String awaitMessage(String queue) throws Exception {
		Channel channel = adminChannel();
		GetResponse[] got = new GetResponse[1];
		await().until(() -> (got[0] = channel.basicGet(queue, true)) != null);
		return new String(got[0].getBody(), StandardCharsets.UTF_8);
	}

	private ILoggingEvent awaitLogLine(String text) {
		ILoggingEvent[] found = new ILoggingEvent[1];
		await().until(() -> {
			for (ILoggingEvent event : List.copyOf(this.settlerLog.list)) {
				if (event.getFormattedMessage().contains(text)) {
					found[0] = event;
					return true;
				}
			}
			return false;
		});
		return found[0];
	}

	private void awaitAttempts(int attempts) {
		await().until(() -> (Integer) state().get("attempts") >= attempts);
	}

	private Map<String, Object> state() {
		return new JdbcTemplate(this.schema.dataSource())
			.queryForMap("SELECT status, attempts, last_error FROM " + this.schema.tables().qualifiedOutboxState());
	}

	private static void rabbitmqctl(String... arguments) throws IOException, InterruptedException {
		List<String> command = new ArrayList<>();
		command.add("rabbitmqctl");
		command.addAll(List.of(arguments));
		Process process;
		try {
			process = new ProcessBuilder(command).redirectErrorStream(true).start();
		}
		catch (IOException ex) {
			throw new AssertionError("This test needs rabbitmqctl on the PATH, allowed to manage the test broker "
					+ "(add_vhost, add_user, set_permissions): " + ex.getMessage(), ex);
		}
		boolean done = process.waitFor(60, TimeUnit.SECONDS);
		String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		if (!done || process.exitValue() != 0) {
			process.destroyForcibly();
			throw new AssertionError("rabbitmqctl " + String.join(" ", arguments) + " failed"
					+ (done ? " with exit code " + process.exitValue() : " to finish in 60 s") + "; this test needs "
					+ "rabbitmqctl allowed to manage the test broker: " + output);
		}
	}

	private static ConditionFactory await() {
		return Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50));
	}

}
