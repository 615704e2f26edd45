package dev.waybill.integration.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.Envelope;
import com.zaxxer.hikari.HikariDataSource;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import dev.waybill.integration.support.ChildJvm;
import dev.waybill.kernel.RelayWakeUp;
import dev.waybill.outbox.InvalidMessageException;
import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.RetryPolicy;
import dev.waybill.outbox.rabbit.test.CapturedLogs;
import dev.waybill.outbox.rabbit.test.TcpProxy;
import dev.waybill.outbox.rabbit.test.TestRabbit;
import dev.waybill.outbox.rabbit.test.TestTopology;
import dev.waybill.outbox.rabbit.test.TestTopology.BoundQueue;
import dev.waybill.outbox.relay.CircuitState;
import dev.waybill.outbox.relay.RelayListener;
import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.outbox.spi.OutboxScope;
import dev.waybill.outbox.spi.Transport;
import dev.waybill.outbox.test.TestMessages;
import dev.waybill.outbox.test.TestOutbox;
import dev.waybill.outbox.test.TestPostgres;
import dev.waybill.outbox.test.TestRelay;
import dev.waybill.outbox.test.TestSchema;

/**
 * The relay end to end: PostgreSQL, the RabbitMQ transport and a real broker, with the broker
 * connection cut by a proxy and a relay process killed.
 */
class RabbitRelayIntegrationTests {

	private static final Duration SLOW_POLL = Duration.ofSeconds(30);

	private static final Consumer<TestRelay.Builder> DEFAULT_SETTINGS = (relay) -> {
	};

	private final List<AutoCloseable> resources = new ArrayList<>();

	private TestSchema schema;

	private TestOutbox outbox;

	private TestTopology topology;

	@BeforeEach
	void setUp() {
		this.schema = TestSchema.withWaybillTables("rabbitrelay");
		this.outbox = TestOutbox.on(this.schema);
		this.topology = TestRabbit.get().topology("relay");
	}

	@AfterEach
	void tearDown() throws Exception {
		Collections.reverse(this.resources);
		for (AutoCloseable resource : this.resources) {
			resource.close();
		}
		this.topology.close();
		this.schema.close();
	}

	@Test
	void committedMessagesArriveWithTheirPropertiesAndInScopeOrder() throws Exception {
		BoundQueue queue = this.topology.exchangeWithQueue("fanout", "");
		RelayWakeUp wakeUp = new RelayWakeUp();
		start(settings(SLOW_POLL, RetryPolicy.defaults()), wakeUp, transport());
		OutboxPublisher publisher = publisher(wakeUp);

		List<UUID> ids = new ArrayList<>();
		inTransaction(publisher, (p) -> {
			ids.add(p.send(queue.exchange(), new Order("first"), (o) -> o.header("tenant", "acme").header("rank", 7)
				.correlationId("req-1").conversationId("conv-1").routingKey("eu")));
			ids.add(p.send(queue.exchange(), new Order("second")));
			ids.add(p.send(queue.exchange(), new Order("third")));
		});

		List<Delivery> received = queue.next(3);
		assertThat(received).extracting((d) -> d.getProperties().getMessageId())
			.containsExactly(ids.get(0).toString(), ids.get(1).toString(), ids.get(2).toString());
		AMQP.BasicProperties first = received.get(0).getProperties();
		assertThat(new String(received.get(0).getBody(), StandardCharsets.UTF_8)).isEqualTo("{\"name\":\"first\"}");
		assertThat(first.getDeliveryMode()).isEqualTo(2);
		assertThat(first.getType()).isEqualTo(Order.class.getCanonicalName());
		assertThat(first.getContentType()).isEqualTo("application/json");
		assertThat(first.getCorrelationId()).isEqualTo("req-1");
		assertThat(first.getTimestamp()).isNotNull();
		assertThat(first.getHeaders()).containsEntry("rank", 7);
		assertThat(first.getHeaders().get("tenant")).hasToString("acme");
		assertThat(first.getHeaders().get("waybill-conversation-id")).hasToString("conv-1");
		assertThat(first.getHeaders().get("waybill-source-host")).hasToString("test-host");
		assertThat(received.get(0).getEnvelope().getRoutingKey()).isEqualTo("eu");
		awaitNoPending();
	}

	@Test
	void aRolledBackTransactionPublishesNothing() {
		BoundQueue queue = this.topology.exchangeWithQueue("fanout", "");
		RelayWakeUp wakeUp = new RelayWakeUp();
		start(settings(SLOW_POLL, RetryPolicy.defaults()), wakeUp, transport());
		OutboxPublisher publisher = publisher(wakeUp);

		new TransactionTemplate(new DataSourceTransactionManager(this.schema.dataSource())).executeWithoutResult((status) -> {
			publisher.send(queue.exchange(), new Order("rolled back"));
			status.setRollbackOnly();
		});
		inTransaction(publisher, (p) -> p.send(queue.exchange(), new Order("committed")));

		assertThat(new String(queue.next().getBody(), StandardCharsets.UTF_8)).contains("committed");
		awaitNoPending();
		assertThat(queue.drain()).isEmpty();
	}

	@Test
	void anUnroutableMessageRetriesWithBackoffThenDiesAndIsDeliveredWhenRedrivenAfterABindingExists() throws Exception {
		String exchange = this.topology.exchange("fanout"); // no queue bound
		RetryPolicy retry = new RetryPolicy(RetryPolicy.Strategy.EXPONENTIAL, Duration.ofMillis(200), 2,
				Duration.ofSeconds(5), 3, 0);
		RelayWakeUp wakeUp = new RelayWakeUp();
		start(settings(SLOW_POLL, retry), wakeUp, transport());
		long started = System.nanoTime();
		this.outbox.writer().write(TestMessages.scope(exchange, "lost?"));
		wakeUp.signal();

		await().until(() -> this.outbox.store().stats().deadScopes() == 1);

		assertThat(Duration.ofNanos(System.nanoTime() - started)).as("waited 200 ms, then 400 ms")
			.isGreaterThanOrEqualTo(Duration.ofMillis(600));
		Map<String, Object> dead = jdbc().queryForMap("SELECT attempts, last_error FROM " + this.schema.tables().qualifiedOutboxState());
		assertThat(dead.get("attempts")).isEqualTo(3);
		assertThat((String) dead.get("last_error")).startsWith("MESSAGE: ").contains("unroutable");

		BoundQueue queue = this.topology.bind(exchange, "");
		assertThat(outbox(wakeUp).admin().redriveDestination(exchange)).isEqualTo(1);
		assertThat(new String(queue.next().getBody(), StandardCharsets.UTF_8)).isEqualTo("lost?");
		awaitNoPending();
	}

	@Test
	void aBrokerConnectionCutLongerThanAllRetriesCostsNoAttemptsAndLosesNothing() throws Exception {
		BoundQueue queue = this.topology.exchangeWithQueue("fanout", "");
		TcpProxy proxy = TestRabbit.get().proxy();
		this.resources.add(proxy);
		RetryPolicy retry = new RetryPolicy(RetryPolicy.Strategy.FIXED, Duration.ofMillis(100), 1, Duration.ofMillis(100), 3, 0);
		// A lease well inside the wait after the restore: a batch whose outcome was lost with the
		// connection comes back through its lease, the designed recovery, within the wait.
		Consumer<TestRelay.Builder> settings = (relay) -> relay.settings(2, 20, Duration.ofSeconds(15),
				Duration.ofMillis(200), Duration.ofSeconds(2), retry, 2, Duration.ofMillis(500));
		List<CircuitState> circuit = new CopyOnWriteArrayList<>();
		RelayListener recordCircuit = recording(circuit);
		RelayWakeUp wakeUp = new RelayWakeUp();
		CapturedLogs logs = CapturedLogs.capture(Level.INFO, "com.rabbitmq.client", "dev.waybill.outbox");
		this.resources.add(logs);
		TestRelay relay = start(settings, wakeUp, TestRabbit.get().transport(proxy).build(), recordCircuit);
		this.outbox.writer().write(TestMessages.scope(queue.exchange(), "before"));
		wakeUp.signal();
		queue.next();

		proxy.cut();
		for (int i = 0; i < 50; i++) {
			this.outbox.writer().write(TestMessages.scope(queue.exchange(), "during-" + i));
		}
		wakeUp.signal();
		await().until(() -> relay.circuitState() != CircuitState.CLOSED);
		// Stay down for ten times max-attempts x interval.
		Awaitility.await().pollDelay(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(10)).until(() -> true);
		assertThat(this.outbox.store().stats().deadScopes()).isZero();
		assertThat(maxAttemptsOfPending()).as("no attempt is counted while the broker is away").isZero();

		proxy.restore();

		Set<String> expected = new HashSet<>();
		for (int i = 0; i < 50; i++) {
			expected.add("during-" + i);
		}
		Set<String> bodies = new HashSet<>();
		Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> {
			queue.drain().forEach((d) -> bodies.add(new String(d.getBody(), StandardCharsets.UTF_8)));
			return bodies.containsAll(expected);
		});
		// "before" may come again: when the cut lands after the broker routed it but before its
		// confirm reached the relay, the relay gives it back and publishes it once more (at least once).
		bodies.remove("before");
		assertThat(bodies).isEqualTo(expected);
		awaitNoPending();
		assertThat(this.outbox.store().stats().deadScopes()).isZero();
		assertThat(circuit).contains(CircuitState.OPEN).endsWith(CircuitState.CLOSED);
		// an outage is expected trouble: warnings without stack traces, no errors
		List<ILoggingEvent> errors = logs.atLeast(Level.ERROR);
		assertThat(errors).as("errors logged:\n%s", CapturedLogs.describe(errors)).isEmpty();
		List<ILoggingEvent> traced = logs.atLeast(Level.WARN).stream().filter((event) -> event.getThrowableProxy() != null).toList();
		assertThat(traced).as("warnings with a stack trace:\n%s", CapturedLogs.describe(traced)).isEmpty();
		// one warning when the outage begins, none per failed probe (every 500 ms here), one line when it ends
		List<String> relayLines = logs.events().stream().filter((event) -> event.getLoggerName().equals(TestRelay.LOGGER_NAME))
			.filter((event) -> event.getLevel().isGreaterOrEqual(Level.INFO)).map(ILoggingEvent::getFormattedMessage).toList();
		assertThat(relayLines).filteredOn((line) -> line.contains("broker")).hasSize(2);
		assertThat(relayLines).filteredOn((line) -> line.contains("broker unavailable (")).hasSize(1);
		assertThat(relayLines).filteredOn((line) -> line.contains("broker available again, circuit closed after PT")).hasSize(1);
	}

	/**
	 * The database cut off (connections refused and closed), or gone silent (connections kept, no
	 * byte answered: a firewall dropping them), with the driver's socketTimeout the README advises.
	 */
	@ParameterizedTest
	@ValueSource(booleans = { false, true })
	void aDatabaseOutageOfTheRelayLosesNothingAndIsLoggedOnceNotPerWorkerAndPoll(boolean silent) throws Exception {
		BoundQueue queue = this.topology.exchangeWithQueue("fanout", "");
		URI database = URI.create(TestPostgres.get().url().substring("jdbc:".length()));
		TcpProxy proxy = TcpProxy.start(database.getHost(), database.getPort());
		this.resources.add(proxy);
		HikariDataSource pool = new HikariDataSource();
		pool.setJdbcUrl("jdbc:postgresql://" + proxy.host() + ":" + proxy.port() + database.getRawPath()
				+ ((database.getRawQuery() != null) ? "?" + database.getRawQuery() : ""));
		pool.setUsername(TestPostgres.get().user());
		pool.setPassword(TestPostgres.get().password());
		pool.setConnectionTimeout(1000);
		pool.addDataSourceProperty("socketTimeout", "1");
		// HikariCP checks a connection idle for more than 500 ms before lending it, bounding that read
		// by its validationTimeout (5 s by default), not by socketTimeout: a claim or poll that drew
		// such a connection waited through the whole pause and then succeeded, logging nothing.
		pool.setValidationTimeout(1000);
		this.resources.add(pool);
		// Polls every 200 ms: before, each of the 2 workers logged a warning with a stack trace per poll.
		CapturedLogs logs = CapturedLogs.capture(Level.INFO, "dev.waybill.outbox");
		this.resources.add(logs);
		RelayWakeUp wakeUp = new RelayWakeUp();
		TestRelay relay = TestRelay.builder(TestOutbox.on(pool, this.schema.tables()).store(), transport())
			.wakeUp(wakeUp)
			.settings(2, 20, Duration.ofSeconds(15), Duration.ofMillis(200), Duration.ofSeconds(2),
					RetryPolicy.defaults(), 2, Duration.ofMillis(500))
			.build();
		this.resources.add(relay::stop);
		relay.start();
		this.outbox.writer().write(TestMessages.scope(queue.exchange(), "before"));
		wakeUp.signal();
		queue.next();

		if (silent) {
			proxy.pause();
		}
		else {
			proxy.cut();
		}
		Set<String> expected = writeDuring(queue, wakeUp, 20);
		// Down for 15 polls of each worker.
		Awaitility.await().pollDelay(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(10)).until(() -> true);
		proxy.restore();

		Set<String> bodies = new HashSet<>();
		await().until(() -> {
			queue.drain().forEach((d) -> bodies.add(new String(d.getBody(), StandardCharsets.UTF_8)));
			return bodies.containsAll(expected);
		});
		awaitNoPending();
		assertThat(this.outbox.store().stats().deadScopes()).isZero();
		assertThat(jdbc().queryForObject("SELECT max(attempts) FROM " + this.schema.tables().qualifiedOutboxState(),
				Integer.class)).as("no attempt counted for the outage").isOne();
		List<String> relayLines = logs.events().stream()
			.filter((event) -> event.getLevel().isGreaterOrEqual(Level.INFO))
			.filter((event) -> event.getLoggerName().startsWith(TestRelay.LOGGER_PREFIX))
			.map(ILoggingEvent::getFormattedMessage)
			.toList();
		assertThat(relayLines).filteredOn((line) -> line.contains("database unavailable (")).hasSize(1);
		assertThat(relayLines).filteredOn((line) -> line.contains("claim")).as(String.join("\n", relayLines)).hasSize(2);
		assertThat(relayLines).filteredOn((line) -> line.contains("claiming again after PT")).hasSize(1);
		List<ILoggingEvent> traced = logs.atLeast(Level.WARN).stream().filter((event) -> event.getThrowableProxy() != null).toList();
		assertThat(traced).as("warnings with a stack trace:\n%s", CapturedLogs.describe(traced)).isEmpty();
	}

	@Test
	void aRelayKilledMidStreamLosesNothingAndAnotherPublishesItsScopesWithin15SecondsAtDefaultSettings() throws Exception {
		int messages = 4000;
		BoundQueue bound = this.topology.exchangeWithQueue("fanout", "");
		for (int i = 0; i < messages; i++) {
			this.outbox.writer().write(TestMessages.scope(bound.exchange(), "m" + i));
		}
		List<String> all = consumeMessageIds(bound);
		Set<String> received = ConcurrentHashMap.newKeySet();

		Process child = startRelayProcess(TestRelay.DEFAULT_LEASE, 25);
		long killedAt;
		try {
			await().until(() -> new HashSet<>(all).size() >= 200);
			child.destroyForcibly(); // SIGKILL
			killedAt = System.nanoTime();
			assertThat(child.waitFor(20, TimeUnit.SECONDS)).isTrue();
		}
		finally {
			child.destroyForcibly();
		}
		long leftByTheDeadRelay = this.outbox.store().stats().pendingScopes();
		assertThat(leftByTheDeadRelay).as("killed mid-way, not after finishing").isPositive();
		// What the dead relay held is either under its lease (claims that committed) or due at once
		// (a claim whose commit had not run yet rolled back); either way it is delivered in time.
		Integer orphaned = jdbc().queryForObject("SELECT count(*) FROM " + this.schema.tables().qualifiedOutboxState()
				+ " WHERE status = 'pending' AND lease_owner IS NOT NULL AND lease_until > now()", Integer.class);

		start(DEFAULT_SETTINGS, new RelayWakeUp(), transport()); // the same host restarted

		Awaitility.await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(50))
			.until(() -> new HashSet<>(all).size() == messages);
		Duration allDelivered = Duration.ofNanos(System.nanoTime() - killedAt);
		System.out.println("Relay killed with " + orphaned + " scopes under lease; every message delivered "
				+ allDelivered.toMillis() + " ms after the kill (lease " + TestRelay.DEFAULT_LEASE + ")");
		received.addAll(all);
		awaitNoPending();
		assertThat(jdbc().queryForList("SELECT m.message_id::text FROM " + this.schema.tables().qualifiedOutboxMessage() + " m",
				String.class)).containsExactlyInAnyOrderElementsOf(received);
		assertThat(all.size()).as("at least once: duplicates allowed, losses not").isGreaterThanOrEqualTo(messages);
	}

	@Test
	void aServiceKilledBetweenItsCommitsAndTheirConfirmsLosesNothingItWasPublishingDirectly() throws Exception {
		BoundQueue bound = this.topology.exchangeWithQueue("fanout", "");
		List<String> all = consumeMessageIds(bound);
		Duration lease = Duration.ofSeconds(3);
		String state = this.schema.tables().qualifiedOutboxState();
		Process child;
		try (TcpProxy proxy = TcpProxy.start(TestRabbit.get().host(), TestRabbit.get().port())) {
			child = startProcess(DirectWriterProcess.class, proxy.host(), proxy.port(), lease, bound.exchange());
			try {
				await().until(() -> all.size() >= 200);
				// The broker stops answering the service: what it commits from now on stays leased
				// to its relay, published or not, unconfirmed.
				proxy.pause();
				await().until(() -> jdbc().queryForObject("SELECT count(*) FROM " + state
						+ " WHERE status = 'pending' AND lease_owner LIKE '%/direct'", Integer.class) >= 50);
				child.destroyForcibly(); // SIGKILL
				assertThat(child.waitFor(20, TimeUnit.SECONDS)).isTrue();
			}
			finally {
				child.destroyForcibly();
			}
		}
		int leftLeased = jdbc().queryForObject("SELECT count(*) FROM " + state
				+ " WHERE status = 'pending' AND lease_owner LIKE '%/direct'", Integer.class);
		assertThat(leftLeased).as("scopes the dead service's relay held by direct dispatch").isGreaterThanOrEqualTo(50);
		List<String> committed = jdbc().queryForList("SELECT message_id::text FROM " + this.schema.tables().qualifiedOutboxMessage(),
				String.class);

		start(DEFAULT_SETTINGS, new RelayWakeUp(), transport()); // the same service restarted, or another instance

		Awaitility.await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100))
			.until(() -> new HashSet<>(all).containsAll(committed));
		awaitNoPending();
		assertThat(jdbc().queryForObject("SELECT count(*) FROM " + state + " WHERE attempts > 2", Integer.class))
			.as("no attempt counted but the write's and the claim's").isZero();
	}

	@Test
	void twoRelaysInParallelDeliverThousandsOfMessagesEachExactlyOnce() throws Exception {
		BoundQueue queue = this.topology.exchangeWithQueue("fanout", "");
		// 400 scopes: twenty claims of 20 for the relays' four workers to contend for
		int messages = 4_000;
		for (int i = 0; i < messages / 10; i++) {
			String[] bodies = new String[10];
			for (int j = 0; j < 10; j++) {
				bodies[j] = "m" + i + "." + j;
			}
			this.outbox.writer().write(TestMessages.scope(queue.exchange(), bodies));
		}
		List<String> ids = consumeMessageIds(queue);
		Consumer<TestRelay.Builder> settings = (relay) -> relay.settings(2, 20, Duration.ofSeconds(60),
				Duration.ofMillis(200), Duration.ofSeconds(5), RetryPolicy.defaults(), 3, Duration.ofSeconds(1));
		start(settings, new RelayWakeUp(), transport());
		start(settings, new RelayWakeUp(), transport());

		Awaitility.await().atMost(Duration.ofSeconds(120)).until(() -> ids.size() >= messages && this.outbox.store().stats().pendingScopes() == 0);
		Awaitility.await().pollDelay(Duration.ofMillis(500)).until(() -> true); // let any duplicate arrive
		assertThat(ids).hasSize(messages).doesNotHaveDuplicates();
	}

	@Test
	void aMessageTheClientCannotSendDiesAloneAndEveryOtherMessageIsDeliveredExactlyOnce() throws Exception {
		BoundQueue queue = this.topology.exchangeWithQueue("fanout", "");
		List<String> ids = consumeMessageIds(queue);
		List<String> good = new ArrayList<>();
		UUID bad = null;
		for (int i = 0; i < 40; i++) {
			if (i == 20) { // written past publish's checks, as an older version or another writer could have
				OutboxMessage tooLarge = new OutboxMessage(UUID.randomUUID(), queue.exchange(), "", "test.message",
						"application/json", Map.of("big", "x".repeat(300_000)), "{}".getBytes(StandardCharsets.UTF_8),
						null, null, null, Instant.now(), null);
				bad = UUID.randomUUID();
				this.outbox.writer().write(new OutboxScope(bad, List.of(tooLarge), null, null));
			}
			OutboxScope scope = TestMessages.scope(queue.exchange(), "a" + i, "b" + i);
			scope.messages().forEach((message) -> good.add(message.messageId().toString()));
			this.outbox.writer().write(scope);
		}
		start(settings(Duration.ofMillis(200), RetryPolicy.defaults()), new RelayWakeUp(), transport());

		await().until(() -> this.outbox.store().stats().pendingScopes() == 0 && ids.size() >= good.size());
		Awaitility.await().pollDelay(Duration.ofMillis(500)).until(() -> true); // let any duplicate arrive
		assertThat(ids).containsExactlyInAnyOrderElementsOf(good);
		List<Map<String, Object>> dead = jdbc().queryForList("SELECT id, attempts, last_error FROM "
				+ this.schema.tables().qualifiedOutboxState() + " WHERE status = 'dead'");
		assertThat(dead).hasSize(1);
		assertThat(dead.get(0).get("id")).isEqualTo(bad);
		assertThat(dead.get(0).get("attempts")).isEqualTo(1);
		assertThat((String) dead.get(0).get("last_error")).startsWith("PERMANENT: ")
			.contains("Content headers exceeded max frame size")
			.contains(TestRabbit.FRAME_MAX_PROPERTY);
	}

	@Test
	void aMessageJustInsidePublishLimitsIsDeliveredAndOneByteMoreIsRefused() throws Exception {
		String exchange = this.topology.exchange("topic");
		String routingKey = "r".repeat(255);
		BoundQueue queue = this.topology.bind(exchange, routingKey);
		Transport transport = transport();
		RelayWakeUp wakeUp = new RelayWakeUp();
		start(settings(SLOW_POLL, RetryPolicy.defaults()), wakeUp, transport);
		OutboxPublisher publisher = TestOutbox.builder(this.schema.dataSource(), this.schema.tables())
			.wakeUp(wakeUp)
			.maxHeaderBytes(transport::maxHeaderBytes)
			.build()
			.publisher();
		long limit = transport.maxHeaderBytes();
		assertThat(limit).isEqualTo(131072 - 8);
		String name = "n".repeat(254) + "n"; // 255 bytes
		Consumer<Integer> publishWithHeaderOf = (length) -> inTransaction(publisher,
				(p) -> p.send(exchange, new Order("limits"), (o) -> o.routingKey(routingKey)
					.correlationId("c".repeat(255))
					.header(name, 1)
					.header("city", "Zürich")
					.header("big", "é".repeat(length / 2) + "x".repeat(length % 2))));
		long over = 0;
		try {
			publishWithHeaderOf.accept((int) limit);
		}
		catch (InvalidMessageException ex) {
			String text = ex.getMessage();
			int start = text.indexOf("take about ") + "take about ".length();
			over = Long.parseLong(text.substring(start, text.indexOf(' ', start))) - limit;
		}
		assertThat(over).isPositive();
		int fits = (int) (limit - over);

		assertThatExceptionOfType(InvalidMessageException.class).isThrownBy(() -> publishWithHeaderOf.accept(fits + 1))
			.withMessageContaining("over the " + limit + " bytes one AMQP frame carries");
		publishWithHeaderOf.accept(fits);

		Delivery delivery = queue.next();
		assertThat(delivery.getEnvelope().getRoutingKey()).isEqualTo(routingKey);
		assertThat(delivery.getProperties().getCorrelationId()).hasSize(255);
		assertThat(delivery.getProperties().getHeaders()).containsKey(name);
		assertThat(delivery.getProperties().getHeaders().get("big").toString().getBytes(StandardCharsets.UTF_8)).hasSize(fits);
		awaitNoPending();
		assertThat(this.outbox.store().stats().deadScopes()).isZero();
	}

	@Test
	void anIdleRelayConfirmsACommittedMessageBeforeItsPollIntervalWouldHaveFired() {
		BoundQueue queue = this.topology.exchangeWithQueue("fanout", "");
		RelayWakeUp wakeUp = new RelayWakeUp();
		start(settings(SLOW_POLL, RetryPolicy.defaults()), wakeUp, transport());
		Awaitility.await().pollDelay(Duration.ofMillis(500)).until(() -> true); // idle: its first poll is done
		long committed = System.nanoTime();

		inTransaction(publisher(wakeUp), (p) -> p.send(queue.exchange(), new Order("fast")));

		queue.next();
		await().until(() -> this.outbox.store().stats().pendingScopes() == 0);
		assertThat(Duration.ofNanos(System.nanoTime() - committed)).isLessThan(SLOW_POLL);
	}

	/** Consumes the queue directly (auto-ack), collecting every message id in arrival order. */
	private List<String> consumeMessageIds(BoundQueue queue) throws IOException {
		List<String> ids = new CopyOnWriteArrayList<>();
		Connection consumer = TestRabbit.get().connect();
		this.resources.add(consumer);
		Channel channel = consumer.createChannel();
		channel.basicConsume(queue.name(), true, new DefaultConsumer(channel) {
			@Override
			public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties properties, byte[] body) {
				ids.add(properties.getMessageId());
			}
		});
		return ids;
	}

	private Process startRelayProcess(Duration lease, int batchSize) throws IOException {
		return startProcess(RelayProcess.class, TestRabbit.get().host(), TestRabbit.get().port(), lease, String.valueOf(batchSize));
	}

	private Process startProcess(Class<?> main, String amqpHost, int amqpPort, Duration lease, String last) throws IOException {
		TestPostgres postgres = TestPostgres.get();
		return ChildJvm.builder(main, List.of(), postgres.url(), postgres.user(), postgres.password(), this.schema.name(),
				amqpHost, String.valueOf(amqpPort), String.valueOf(lease.toMillis()), last)
			.redirectOutput(ProcessBuilder.Redirect.DISCARD)
			.start();
	}

	private TestRelay start(Consumer<TestRelay.Builder> settings, RelayWakeUp wakeUp, Transport transport) {
		return start(settings, wakeUp, transport, RelayListener.NONE);
	}

	private TestRelay start(Consumer<TestRelay.Builder> settings, RelayWakeUp wakeUp, Transport transport,
			RelayListener listener) {
		TestRelay.Builder builder = TestRelay.builder(this.outbox.store(), transport).wakeUp(wakeUp).listener(listener);
		settings.accept(builder);
		TestRelay relay = builder.build();
		this.resources.add(transport);
		this.resources.add(relay);
		relay.start();
		return relay;
	}

	private Transport transport() {
		return TestRabbit.get().transport().build();
	}

	private static Consumer<TestRelay.Builder> settings(Duration poll, RetryPolicy retry) {
		return (relay) -> relay.settings(2, 50, Duration.ofSeconds(60), poll, Duration.ofSeconds(5), retry, 3,
				Duration.ofSeconds(1));
	}

	/** An outbox on the test's tables whose writes signal {@code wakeUp}. */
	private TestOutbox outbox(RelayWakeUp wakeUp) {
		return TestOutbox.builder(this.schema.dataSource(), this.schema.tables()).wakeUp(wakeUp).build();
	}

	private OutboxPublisher publisher(RelayWakeUp wakeUp) {
		return outbox(wakeUp).publisher();
	}

	private void inTransaction(OutboxPublisher publisher, Consumer<OutboxPublisher> work) {
		new TransactionTemplate(new DataSourceTransactionManager(this.schema.dataSource()))
			.executeWithoutResult((status) -> work.accept(publisher));
	}

	private static RelayListener recording(List<CircuitState> circuit) {
		return new RelayListener() {
			@Override
			public void circuitChanged(CircuitState state) {
				circuit.add(state);
			}
		};
	}

	/** Writes scopes "during-0" to "during-{count-1}", wakes the relay and returns their bodies. */
	private Set<String> writeDuring(BoundQueue queue, RelayWakeUp wakeUp, int count) {
		Set<String> bodies = new HashSet<>();
		for (int i = 0; i < count; i++) {
			this.outbox.writer().write(TestMessages.scope(queue.exchange(), "during-" + i));
			bodies.add("during-" + i);
		}
		wakeUp.signal();
		return bodies;
	}

	private int maxAttemptsOfPending() {
		Integer max = jdbc().queryForObject("SELECT max(attempts) FROM " + this.schema.tables().qualifiedOutboxState()
				+ " WHERE status = 'pending'", Integer.class);
		return max == null ? 0 : max;
	}

	private void awaitNoPending() {
		await().until(() -> this.outbox.store().stats().pendingScopes() == 0);
	}

	@Test
	void aBrokerThatStopsAnsweringWithoutClosingTheConnectionCostsNoAttemptsAndOpensTheCircuit() throws Exception {
		BoundQueue queue = this.topology.exchangeWithQueue("fanout", "");
		TcpProxy proxy = TestRabbit.get().proxy();
		Transport transport = TestRabbit.get().transport(proxy)
			.confirmTimeout(Duration.ofMillis(500))
			.connectionTimeout(Duration.ofSeconds(1))
			.build();
		this.resources.add(transport);
		this.resources.add(proxy); // closed first, so that blocked writes fail and the transport can close
		// Two attempts: before, each confirm timeout of a silent broker cost one, and the scopes died.
		RetryPolicy retry = new RetryPolicy(RetryPolicy.Strategy.FIXED, Duration.ofMillis(100), 1, Duration.ofMillis(100), 2, 0);
		List<CircuitState> circuit = new CopyOnWriteArrayList<>();
		RelayListener recordCircuit = recording(circuit);
		RelayWakeUp wakeUp = new RelayWakeUp();
		TestRelay relay = TestRelay.builder(this.outbox.store(), transport)
			.wakeUp(wakeUp)
			.settings(1, 20, Duration.ofSeconds(15), Duration.ofMillis(200), Duration.ofMillis(500), retry, 2,
					Duration.ofMillis(500))
			.listener(recordCircuit)
			.build();
		relay.start();
		this.resources.add(relay::stop);
		this.outbox.writer().write(TestMessages.scope(queue.exchange(), "before"));
		wakeUp.signal();
		queue.next();

		// As a broker that is frozen, or blocks publishers on a resource alarm: the connection stays up.
		proxy.pause();
		Set<String> expected = writeDuring(queue, wakeUp, 10);
		await().until(() -> circuit.contains(CircuitState.OPEN));
		// many confirm timeouts long
		Awaitility.await().pollDelay(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(10)).until(() -> true);
		assertThat(this.outbox.store().stats().deadScopes()).isZero();
		assertThat(maxAttemptsOfPending()).as("no attempt is counted while the broker does not answer").isZero();

		proxy.restore();
		Set<String> bodies = new HashSet<>();
		Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> {
			queue.drain().forEach((d) -> bodies.add(new String(d.getBody(), StandardCharsets.UTF_8)));
			return bodies.containsAll(expected);
		});
		awaitNoPending();
		assertThat(this.outbox.store().stats().deadScopes()).isZero();
	}

	@Test
	void aRelayStoppedWhileItCannotPublishGivesBackTheScopesItClaimedDueAtOnce() throws Exception {
		BoundQueue queue = this.topology.exchangeWithQueue("fanout", "");
		TcpProxy proxy = TestRabbit.get().proxy();
		Transport transport = TestRabbit.get().transport(proxy).build();
		this.resources.add(transport);
		this.resources.add(proxy); // closed first, so the blocked writes fail and the transport can close
		// The broker stops answering: the worker's publishes fill the socket and block, so the
		// scopes it claimed are neither published nor failed when the relay stops.
		RetryPolicy retry = new RetryPolicy(RetryPolicy.Strategy.FIXED, Duration.ofSeconds(1), 1, Duration.ofSeconds(1), 5, 0);
		RelayWakeUp wakeUp = new RelayWakeUp();
		TestRelay relay = TestRelay.builder(this.outbox.store(), transport)
			.wakeUp(wakeUp)
			.settings(1, 40, Duration.ofSeconds(60), Duration.ofMillis(200), Duration.ofMillis(500), retry, 3,
					Duration.ofSeconds(1))
			.build();
		Set<Thread> relayThreads = ConcurrentHashMap.newKeySet();
		relay.start();
		this.resources.add(relay::stop);
		Thread.getAllStackTraces().keySet().stream().filter((t) -> t.getName().startsWith("waybill-relay")).forEach(relayThreads::add);
		assertThat(relayThreads).extracting(Thread::getName)
			.contains("waybill-relay-settler", "waybill-relay-leases", "waybill-relay-0");

		// the worker's channel is open before the broker stops answering
		this.outbox.writer().write(TestMessages.scope(queue.exchange(), "\"first\""));
		wakeUp.signal();
		queue.next();
		Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> this.outbox.store().stats().pendingScopes() == 0);

		proxy.pause();
		String body = "\"" + "x".repeat(1024 * 1024) + "\"";
		for (int i = 0; i < 40; i++) {
			this.outbox.writer().write(TestMessages.scope(queue.exchange(), body));
		}
		wakeUp.signal();
		// 40 MB: more than the socket buffers hold, so the batch's publishing blocks
		Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> leased() > 0);

		relay.stop();

		assertThat(leased()).as("scopes still under the stopped relay's lease").isZero();
		assertThat(due()).as("pending scopes due at once").isEqualTo(40);
		assertThat(jdbc().queryForObject("SELECT max(attempts) FROM " + this.schema.tables().qualifiedOutboxState()
				+ " WHERE status = 'pending'",
				Integer.class)).as("no attempt counted").isZero();
	}

	private int leased() {
		return jdbc().queryForObject("SELECT count(*) FROM " + this.schema.tables().qualifiedOutboxState()
				+ " WHERE status = 'pending' AND lease_owner IS NOT NULL AND lease_until > now()", Integer.class);
	}

	private int due() {
		return jdbc().queryForObject("SELECT count(*) FROM " + this.schema.tables().qualifiedOutboxState()
				+ " WHERE status = 'pending' AND lease_owner IS NULL AND next_attempt_at <= now()", Integer.class);
	}

	private JdbcTemplate jdbc() {
		return new JdbcTemplate(this.schema.dataSource());
	}

	private static ConditionFactory await() {
		return Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50));
	}

	record Order(String name) {
	}

}
