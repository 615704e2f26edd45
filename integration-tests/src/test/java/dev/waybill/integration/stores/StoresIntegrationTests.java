package dev.waybill.integration.stores;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import javax.sql.DataSource;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.GetResponse;
import com.zaxxer.hikari.HikariDataSource;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.Lifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.jdbc.datasource.lookup.AbstractRoutingDataSource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import dev.waybill.inbox.Consumer;
import dev.waybill.inbox.InboxHeaders;
import dev.waybill.inbox.MessageContext;
import dev.waybill.inbox.MessageHandler;
import dev.waybill.inbox.autoconfigure.WaybillInboxAutoConfiguration;
import dev.waybill.outbox.MessageType;
import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.PublishOptions;
import dev.waybill.outbox.autoconfigure.WaybillRelayAutoConfiguration;
import dev.waybill.outbox.rabbit.autoconfigure.WaybillRabbitAutoConfiguration;
import dev.waybill.outbox.rabbit.autoconfigure.WaybillRabbitInboxAutoConfiguration;
import dev.waybill.outbox.rabbit.test.TestRabbit;
import dev.waybill.outbox.rabbit.test.TestTopology;
import dev.waybill.outbox.rabbit.test.TestTopology.BoundQueue;
import dev.waybill.outbox.spi.ConnectionOutboxWriter;
import dev.waybill.outbox.spi.OutboxScope;
import dev.waybill.outbox.store.StoreResolver;
import dev.waybill.outbox.store.UnknownStoreException;
import dev.waybill.outbox.store.WaybillStore;
import dev.waybill.outbox.store.WaybillStores;
import dev.waybill.outbox.test.TestMessages;
import dev.waybill.outbox.test.TestPostgres;
import dev.waybill.outbox.test.TestSchema;
import dev.waybill.outbox.test.WaybillContext;

/**
 * One service, several stores, real PostgreSQL and RabbitMQ: the default store, two tenant
 * databases ({@code a}, {@code b}) and a tenant schema ({@code c}) on the application's
 * DataSource, named by a {@link StoreResolver}. Each publish lands in its own store's tables and
 * is relayed once; a publish whose store cannot be told fails and writes nothing; a tenant
 * database that goes away stalls no other; a tenant registered at run time is migrated and relayed.
 */
class StoresIntegrationTests {

	/** The tenant of the current thread, as an application keeps it for the request. */
	static final ThreadLocal<String> tenant = new ThreadLocal<>();

	/** What {@link Tenants} connects to, set before each context starts. */
	static final Map<String, String> urls = new ConcurrentHashMap<>();

	private final List<String> databases = new ArrayList<>();

	private TestSchema schema;

	private TestTopology topology;

	private BoundQueue queue;

	private com.rabbitmq.client.Connection consumer;

	/** Message ids delivered, with how many times each. */
	private final Map<String, Integer> delivered = new ConcurrentHashMap<>();

	@BeforeEach
	void setUp() throws Exception {
		this.schema = TestSchema.create("stores");
		urls.put("a", database());
		urls.put("b", database());
		urls.put("d", database());
		this.topology = TestRabbit.get().topology("stores");
		this.queue = this.topology.exchangeWithQueue("fanout", "");
		billedTo = this.queue.exchange();
		this.consumer = TestRabbit.get().connect();
		Channel channel = this.consumer.createChannel();
		channel.basicConsume(this.queue.name(), true, new DefaultConsumer(channel) {
			@Override
			public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties properties, byte[] body) {
				StoresIntegrationTests.this.delivered.merge(properties.getMessageId(), 1, Integer::sum);
			}
		});
	}

	@AfterEach
	void tearDown() throws Exception {
		tenant.remove();
		try (com.rabbitmq.client.Connection connection = TestRabbit.get().connect()) {
			Channel channel = connection.createChannel();
			channel.queueDelete(BILLING_QUEUE);
			channel.queueDelete(BILLING_QUEUE + "_error");
			channel.exchangeDelete(OrderPlaced.TYPE);
		}
		this.consumer.close();
		this.topology.close();
		this.schema.execute("DROP SCHEMA IF EXISTS " + this.schema.name() + "_c CASCADE");
		this.schema.close();
		try (Connection connection = TestPostgres.get().connect(); Statement statement = connection.createStatement()) {
			for (String database : this.databases) {
				statement.execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
			}
		}
	}

	@Test
	void eachPublishIsWrittenToItsOwnStoreAndRelayedOnce() {
		service().run((context) -> {
			Map<String, List<UUID>> sent = new HashMap<>();
			for (String store : List.of("default", "a", "b", "c")) {
				for (int i = 0; i < 5; i++) {
					sent.computeIfAbsent(store, (s) -> new ArrayList<>()).add(publish(context, store));
				}
			}
			awaitDelivered(sent.values().stream().flatMap(List::stream).toList());
			for (String store : sent.keySet()) {
				assertThat(scopes(context, store)).as("store " + store + " holds its own messages, and only those")
					.containsExactlyInAnyOrderElementsOf(sent.get(store).stream().map(UUID::toString).toList());
				assertThat(statuses(context, store)).as(store).containsOnly("published");
			}
			assertThat(this.delivered.values()).as("each once").containsOnly(1);
		});
	}

	@Test
	void aPublishWhoseStoreCannotBeToldFailsAndWritesNothing() {
		service().run((context) -> {
			// The application's DataSource holds the default store and c: the resolver must say which.
			assertThatExceptionOfType(UnknownStoreException.class).isThrownBy(() -> publishIn(context, "transactionManager", null))
				.withMessageContaining("cannot tell which store")
				.withMessageContaining("StoreResolver");
			assertThatExceptionOfType(UnknownStoreException.class)
				.isThrownBy(() -> publishIn(context, "transactionManager", "nope"))
				.withMessageContaining("store 'nope', which is not registered");
			assertThatExceptionOfType(UnknownStoreException.class)
				.isThrownBy(() -> publishIn(context, "transactionManager", "a"))
				.withMessageContaining("store 'a', but the current transaction holds no connection to its database");
			// a database that is no store's
			assertThatExceptionOfType(UnknownStoreException.class)
				.isThrownBy(() -> publishIn(context, "unregisteredTransactions", null))
				.withMessageContaining("writes to no registered Waybill store");
			for (String store : List.of("default", "a", "b", "c")) {
				assertThat(scopes(context, store)).as(store).isEmpty();
			}
		});
	}

	@Test
	void aRoutingDataSourceWritesToTheStoreItsConnectionReaches() {
		service().run((context) -> {
			UUID toA = publishIn(context, "routingTransactions", null, "a");
			UUID toB = publishIn(context, "routingTransactions", null, "b");
			awaitDelivered(List.of(toA, toB));
			assertThat(scopes(context, "a")).containsExactly(toA.toString());
			assertThat(scopes(context, "b")).containsExactly(toB.toString());
		});
	}

	@Test
	void aWriteOnAConnectionTheCallerHoldsGoesToTheStoreOfThatConnection() {
		service().run((context) -> {
			// as the Hibernate integration writes, through its session's connection
			ConnectionOutboxWriter writer = context.getBean(ConnectionOutboxWriter.class);
			OutboxScope scope = TestMessages.scope(this.queue.exchange(), "through a session");
			try (Connection connection = context.getBean("tenantB", DataSource.class).getConnection()) {
				writer.write(connection, scope);
			}
			String id = scope.messages().get(0).messageId().toString();
			assertThat(scopes(context, "b")).containsExactly(id);
			assertThat(scopes(context, "default")).isEmpty();
			OutboxScope unknown = TestMessages.scope(this.queue.exchange(), "no store's");
			try (Connection connection = context.getBean("unregistered", DataSource.class).getConnection()) {
				assertThatExceptionOfType(UnknownStoreException.class).isThrownBy(() -> writer.write(connection, unknown))
					.withMessageContaining("the database of no registered Waybill store");
			}
		});
	}

	@Test
	void anotherInstancesCommitToATenantStoreWakesThisRelayForThatStoreWithoutWaitingForItsPoll() {
		service().withPropertyValues("waybill.outbox.relay.poll-interval=60s").run((relaying) -> {
			service().withPropertyValues("waybill.outbox.relay.enabled=false").run((writing) -> {
				long started = System.nanoTime();
				UUID id = publish(writing, "b");
				awaitDelivered(List.of(id));
				assertThat(Duration.ofNanos(System.nanoTime() - started)).as("well before the relay's poll")
					.isLessThan(Duration.ofSeconds(20));
			});
		});
	}

	@Test
	void aTenantDatabaseThatGoesAwayStallsNoOtherAndCatchesUpWhenBack() throws Exception {
		service().run((context) -> {
			Lifecycle relay = context.getBean(WaybillRelayAutoConfiguration.RELAY_BEAN_NAME, Lifecycle.class);
			relay.stop();
			List<UUID> toA = new ArrayList<>();
			List<UUID> others = new ArrayList<>();
			for (int i = 0; i < 20; i++) {
				toA.add(publish(context, "a"));
				others.add(publish(context, "b"));
				others.add(publish(context, "default"));
			}
			closeDatabase(urls.get("a"));
			CountingDataSource tenantA = context.getBean("tenantA", CountingDataSource.class);
			tenantA.connections.clear();
			try {
				relay.start();
				awaitDelivered(others);
				// Written after the outage began, relayed just as fast.
				List<UUID> later = List.of(publish(context, "b"), publish(context, "c"), publish(context, "default"));
				awaitDelivered(later);
				assertThat(toA).as("none of the unavailable store's").noneMatch((id) -> this.delivered.containsKey(id.toString()));
				// Its return is watched for off the relay's workers: once it is, they wait on its pool no more.
				Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> recoveryChecks(tenantA) >= 2);
				int byWorkers = workerAttempts(tenantA);
				int checks = recoveryChecks(tenantA);
				Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> recoveryChecks(tenantA) >= checks + 5);
				assertThat(workerAttempts(tenantA)).as("the workers' attempts to reach it, by thread: " + tenantA.connections)
					.isEqualTo(byWorkers);
			}
			finally {
				openDatabase(urls.get("a"));
			}
			awaitDelivered(toA);
			assertThat(statuses(context, "a")).containsOnly("published");
			assertThat(this.delivered.values()).as("each once").containsOnly(1);
		});
	}

	@Test
	void aStoreRegisteredAtRunTimeIsMigratedAndRelayedUntilItIsDeregistered() {
		service().run((context) -> {
			WaybillStores stores = context.getBean(WaybillStores.class);
			DataSource tenantD = context.getBean("unregistered", DataSource.class);
			// Another tenant's orders flow all the while.
			List<UUID> load = new CopyOnWriteArrayList<>();
			AtomicBoolean loading = new AtomicBoolean(true);
			Thread writer = new Thread(() -> {
				while (loading.get()) {
					load.add(publish(context, "b"));
				}
			}, "tenant-b-writer");
			writer.start();
			Awaitility.await().until(() -> load.size() >= 50);
			stores.register(new WaybillStore("d", tenantD, "waybill"));
			assertThat(stores.all().stream().map(WaybillStore::name)).containsExactly("default", "a", "b", "c", "d");
			UUID first = publishIn(context, "unregisteredTransactions", null);
			awaitDelivered(List.of(first));
			assertThat(scopes(context, "d")).containsExactly(first.toString());

			Lifecycle relay = context.getBean(WaybillRelayAutoConfiguration.RELAY_BEAN_NAME, Lifecycle.class);
			relay.stop();
			UUID unrelayed = publishIn(context, "unregisteredTransactions", null);
			assertThat(stores.deregister("d")).isTrue();
			assertThatExceptionOfType(UnknownStoreException.class)
				.isThrownBy(() -> publishIn(context, "unregisteredTransactions", null));
			relay.start();
			Awaitility.await().until(() -> load.size() >= 300);
			loading.set(false);
			writer.join();
			awaitDelivered(load);
			assertThat(load).as("the other tenant's orders, each once").allMatch((id) -> this.delivered.get(id.toString()) == 1);
			UUID canary = publish(context, "b");
			awaitDelivered(List.of(canary));
			assertThat(this.delivered).as("a deregistered store is not relayed").doesNotContainKey(unrelayed.toString());
			assertThat(new JdbcTemplate(tenantD).queryForList("SELECT message_id::text FROM waybill.outbox_message", String.class))
				.as("its rows stay").containsExactlyInAnyOrder(first.toString(), unrelayed.toString());
		});
	}

	@Test
	void eachTenantsOrdersAreBilledOnceInItsOwnStore() throws Exception {
		billing().run((context) -> {
			Map<String, List<UUID>> orders = new HashMap<>();
			for (String store : List.of("default", "a", "b", "c")) {
				WaybillStore found = context.getBean(WaybillStores.class).find(store).orElseThrow();
				new JdbcTemplate(found.dataSource()).execute("CREATE TABLE " + found.schema() + ".bills (order_id uuid PRIMARY KEY)");
			}
			for (int i = 0; i < 10; i++) {
				for (String store : List.of("default", "a", "b", "c")) {
					UUID order = UUID.randomUUID();
					orders.computeIfAbsent(store, (s) -> new ArrayList<>()).add(order);
					placeOrder(context, store, order);
				}
			}
			Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> orders.keySet().stream()
				.allMatch((store) -> query(context, store, "SELECT order_id::text FROM %s.bills").size() == 10));
			for (String store : orders.keySet()) {
				assertThat(query(context, store, "SELECT order_id::text FROM %s.bills")).as("the bills of " + store)
					.containsExactlyInAnyOrderElementsOf(orders.get(store).stream().map(UUID::toString).toList());
				assertThat(query(context, store, "SELECT consumer_id FROM %s.inbox_state WHERE processed_at IS NOT NULL"))
					.as("recorded in its own inbox").hasSize(10);
			}
			// What the handler published went to the outbox of the store it handled the order in.
			Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> orders.keySet().stream()
				.allMatch((store) -> query(context, store,
						"SELECT s.status FROM %s.outbox_state s WHERE s.inbound_message_id IS NOT NULL AND s.status = 'published'")
					.size() == 10));
		});
	}

	@Test
	void twoInstancesOfTheServiceBillEachTenantsOrdersOnceInItsOwnStore() {
		billing().run((first) -> billing().run((second) -> {
			for (String store : List.of("default", "a", "b", "c")) {
				WaybillStore found = first.getBean(WaybillStores.class).find(store).orElseThrow();
				new JdbcTemplate(found.dataSource()).execute("CREATE TABLE " + found.schema() + ".bills (order_id uuid PRIMARY KEY)");
			}
			Map<String, List<UUID>> orders = new HashMap<>();
			for (int i = 0; i < 25; i++) {
				for (String store : List.of("default", "a", "b", "c")) {
					UUID order = UUID.randomUUID();
					orders.computeIfAbsent(store, (s) -> new ArrayList<>()).add(order);
					placeOrder((i % 2 == 0) ? first : second, store, order);
				}
			}
			Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> orders.keySet().stream()
				.allMatch((store) -> query(first, store, "SELECT order_id::text FROM %s.bills").size() == 25));
			for (String store : orders.keySet()) {
				assertThat(query(first, store, "SELECT order_id::text FROM %s.bills")).as("the bills of " + store)
					.containsExactlyInAnyOrderElementsOf(orders.get(store).stream().map(UUID::toString).toList());
				assertThat(query(first, store, "SELECT status FROM %s.outbox_state WHERE inbound_message_id IS NULL"))
					.as("every order relayed from its own store").hasSize(25);
				assertThat(query(first, store, "SELECT message_id::text FROM %s.inbox_state WHERE faulted_at IS NOT NULL"))
					.as("nothing faulted").isEmpty();
			}
		}));
	}

	@Test
	void aMessageNamingAStoreTheConsumerDoesNotHaveGoesToTheErrorQueueWithTheReason() throws Exception {
		billing().run((context) -> {
			try (com.rabbitmq.client.Connection connection = TestRabbit.get().connect()) {
				Channel channel = connection.createChannel();
				AMQP.BasicProperties properties = new AMQP.BasicProperties.Builder().messageId(UUID.randomUUID().toString())
					.type(OrderPlaced.TYPE)
					.contentType("application/json")
					.headers(Map.of(PublishOptions.STORE_HEADER, "nope"))
					.build();
				channel.basicPublish(OrderPlaced.TYPE, "", properties,
						("{\"orderId\":\"" + UUID.randomUUID() + "\"}").getBytes(StandardCharsets.UTF_8));
				GetResponse faulted = Awaitility.await().atMost(Duration.ofSeconds(30))
					.until(() -> channel.basicGet(BILLING_QUEUE + "_error", true), Objects::nonNull);
				assertThat(String.valueOf(faulted.getProps().getHeaders().get(InboxHeaders.FAULT_REASON)))
					.contains("store 'nope'").contains("not registered");
			}
		});
	}

	private void placeOrder(ApplicationContext context, String store, UUID order) {
		OutboxPublisher publisher = context.getBean(OutboxPublisher.class);
		String transactionManager = switch (store) {
			case "a" -> "tenantATransactions";
			case "b" -> "tenantBTransactions";
			default -> "transactionManager";
		};
		tenant.set(store);
		try {
			new TransactionTemplate(context.getBean(transactionManager, PlatformTransactionManager.class))
				.executeWithoutResult((status) -> publisher.publish(new OrderPlaced(order)));
		}
		finally {
			tenant.remove();
		}
	}

	private ApplicationContextRunner billing() {
		return service()
			.withConfiguration(AutoConfigurations.of(WaybillInboxAutoConfiguration.class,
					WaybillRabbitInboxAutoConfiguration.class))
			.withUserConfiguration(Billing.class);
	}

	private ApplicationContextRunner service() {
		TestRabbit rabbit = TestRabbit.get();
		return WaybillContext.runner(this.schema.name())
			.withConfiguration(AutoConfigurations.of(WaybillRabbitAutoConfiguration.class))
			.withUserConfiguration(Tenants.class)
			.withPropertyValues("spring.rabbitmq.host=" + rabbit.host(), "spring.rabbitmq.port=" + rabbit.port(),
					"spring.rabbitmq.username=" + rabbit.username(), "spring.rabbitmq.password=" + rabbit.password(),
					"waybill.stores.a.data-source=tenantA", "waybill.stores.b.data-source=tenantB",
					"waybill.stores.c.schema=" + this.schema.name() + "_c", "waybill.outbox.relay.poll-interval=200ms",
					"waybill.outbox.relay.workers=2");
	}

	private UUID publish(ApplicationContext context, String store) {
		return publishIn(context, switch (store) {
			case "a" -> "tenantATransactions";
			case "b" -> "tenantBTransactions";
			default -> "transactionManager";
		}, store);
	}

	private UUID publishIn(ApplicationContext context, String transactionManager, String store) {
		return publishIn(context, transactionManager, store, null);
	}

	/** Publishes one message under the given transaction manager, with the resolver naming {@code store}. */
	private UUID publishIn(ApplicationContext context, String transactionManager, String store, String route) {
		OutboxPublisher publisher = context.getBean(OutboxPublisher.class);
		TransactionTemplate transactions = new TransactionTemplate(
				context.getBean(transactionManager, PlatformTransactionManager.class));
		tenant.set(store);
		Tenants.route.set(route);
		try {
			return transactions.execute((status) -> publisher.send(this.queue.exchange(), Map.of("store", String.valueOf(store))));
		}
		finally {
			tenant.remove();
			Tenants.route.remove();
		}
	}

	/** The ids of the messages in a store. */
	private List<String> scopes(ApplicationContext context, String store) {
		return query(context, store, "SELECT message_id::text FROM %s.outbox_message");
	}

	private List<String> statuses(ApplicationContext context, String store) {
		return query(context, store, "SELECT status FROM %s.outbox_state");
	}

	private List<String> query(ApplicationContext context, String store, String sql) {
		WaybillStore found = context.getBean(WaybillStores.class).find(store).orElseThrow();
		return new JdbcTemplate(found.dataSource()).queryForList(sql.formatted(found.schema()),
				String.class);
	}

	private void awaitDelivered(List<UUID> ids) {
		Set<String> expected = ids.stream().map(UUID::toString).collect(Collectors.toSet());
		Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> this.delivered.keySet().containsAll(expected));
	}

	private String database() throws SQLException {
		String name = "waybill_store_" + UUID.randomUUID().toString().substring(0, 8);
		try (Connection connection = TestPostgres.get().connect(); Statement statement = connection.createStatement()) {
			statement.execute("CREATE DATABASE " + name);
		}
		this.databases.add(name);
		return TestPostgres.get().url().replaceFirst("/[^/?]+(\\?|$)", "/" + name + "$1");
	}

	/** Lets no one connect to the database and ends its sessions: it is unavailable to Waybill. */
	private static void closeDatabase(String url) throws SQLException {
		String name = databaseName(url);
		try (Connection connection = TestPostgres.get().connect(); Statement statement = connection.createStatement()) {
			statement.execute("ALTER DATABASE " + name + " WITH ALLOW_CONNECTIONS false");
			statement.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + name + "'");
		}
	}

	private static void openDatabase(String url) throws SQLException {
		try (Connection connection = TestPostgres.get().connect(); Statement statement = connection.createStatement()) {
			statement.execute("ALTER DATABASE " + databaseName(url) + " WITH ALLOW_CONNECTIONS true");
		}
	}

	private static String databaseName(String url) {
		String path = url.substring(url.lastIndexOf('/') + 1);
		int parameters = path.indexOf('?');
		return (parameters >= 0) ? path.substring(0, parameters) : path;
	}

	static final String BILLING_QUEUE = "waybill-test.stores.billing";

	/** Where the billing handler says it billed an order: the test's queue. */
	static volatile String billedTo;

	@MessageType(OrderPlaced.TYPE)
	record OrderPlaced(UUID orderId) {

		static final String TYPE = "waybill-test.stores.order-placed";

	}

	@MessageType("waybill-test.stores.order-billed")
	record OrderBilled(UUID orderId) {
	}

	@Configuration(proxyBeanMethods = false)
	static class Billing {

		@Bean
		BillingHandler billingHandler(WaybillStores stores) {
			return new BillingHandler(stores);
		}

	}

	/** Bills each order in the store it is handled in, and says so through that store's outbox. */
	@Consumer(queue = BILLING_QUEUE)
	static class BillingHandler implements MessageHandler<OrderPlaced> {

		private final WaybillStores stores;

		BillingHandler(WaybillStores stores) {
			this.stores = stores;
		}

		@Override
		public void handle(OrderPlaced order, MessageContext context) {
			WaybillStore store = this.stores.find(context.store()).orElseThrow();
			new JdbcTemplate(store.dataSource()).update("INSERT INTO " + store.schema() + ".bills (order_id) VALUES (?)",
					order.orderId());
			context.send(billedTo, new OrderBilled(order.orderId()));
		}

	}

	private static int recoveryChecks(CountingDataSource tenant) {
		return tenant.connections.getOrDefault("waybill-relay-store-recovery", 0);
	}

	private static int workerAttempts(CountingDataSource tenant) {
		return tenant.connections.entrySet().stream()
			.filter((entry) -> !entry.getKey().equals("waybill-relay-store-recovery"))
			.mapToInt(Map.Entry::getValue)
			.sum();
	}

	/** A tenant's pool that counts the connections asked of it, by the asking thread's name. */
	static final class CountingDataSource extends DelegatingDataSource implements AutoCloseable {

		final Map<String, Integer> connections = new ConcurrentHashMap<>();

		private final HikariDataSource pool;

		CountingDataSource(HikariDataSource pool) {
			super(pool);
			this.pool = pool;
		}

		@Override
		public Connection getConnection() throws SQLException {
			this.connections.merge(Thread.currentThread().getName(), 1, Integer::sum);
			return super.getConnection();
		}

		@Override
		public void close() {
			this.pool.close();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Tenants {

		/** Which tenant database the routing DataSource connects to. */
		static final ThreadLocal<String> route = new ThreadLocal<>();

		@Bean
		@Primary
		HikariDataSource dataSource() {
			return TestPostgres.get().pool("default", 6);
		}

		@Bean
		@Primary
		PlatformTransactionManager transactionManager(DataSource dataSource) {
			return new DataSourceTransactionManager(dataSource);
		}

		@Bean
		CountingDataSource tenantA() {
			return new CountingDataSource(tenantPool("a"));
		}

		@Bean
		PlatformTransactionManager tenantATransactions(@Qualifier("tenantA") DataSource tenantA) {
			return new DataSourceTransactionManager(tenantA);
		}

		@Bean
		HikariDataSource tenantB() {
			return tenantPool("b");
		}

		@Bean
		PlatformTransactionManager tenantBTransactions(@Qualifier("tenantB") DataSource tenantB) {
			return new DataSourceTransactionManager(tenantB);
		}

		@Bean
		HikariDataSource unregistered() {
			return tenantPool("d");
		}

		@Bean
		PlatformTransactionManager unregisteredTransactions(@Qualifier("unregistered") DataSource unregistered) {
			return new DataSourceTransactionManager(unregistered);
		}

		@Bean
		AbstractRoutingDataSource routing(@Qualifier("tenantA") DataSource tenantA,
				@Qualifier("tenantB") DataSource tenantB) {
			AbstractRoutingDataSource routing = new AbstractRoutingDataSource() {
				@Override
				protected Object determineCurrentLookupKey() {
					return route.get();
				}
			};
			routing.setTargetDataSources(Map.of("a", tenantA, "b", tenantB));
			routing.afterPropertiesSet();
			return routing;
		}

		@Bean
		PlatformTransactionManager routingTransactions(@Qualifier("routing") DataSource routing) {
			return new DataSourceTransactionManager(routing);
		}

		@Bean
		StoreResolver storeResolver() {
			Supplier<String> current = tenant::get;
			return current::get;
		}

		private static HikariDataSource tenantPool(String store) {
			HikariDataSource pool = TestPostgres.at(urls.get(store), TestPostgres.get().user(), TestPostgres.get().password(),
					"tenant " + store).pool("tenant-" + store, 4);
			// An unavailable tenant database fails a claim within a second rather than holding a worker.
			pool.setConnectionTimeout(1000);
			return pool;
		}

	}

}
