package dev.waybill.integration.relay;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

import dev.waybill.kernel.RelayWakeUp;
import dev.waybill.outbox.OutboxStats;
import dev.waybill.outbox.RetryPolicy;
import dev.waybill.outbox.rabbit.test.TcpProxy;
import dev.waybill.outbox.rabbit.test.TestRabbit;
import dev.waybill.outbox.rabbit.test.TestTopology;
import dev.waybill.outbox.rabbit.test.TestTopology.BoundQueue;
import dev.waybill.outbox.spi.OutboxStore;
import dev.waybill.outbox.test.ForwardingOutboxStore;
import dev.waybill.outbox.test.TestMessages;
import dev.waybill.outbox.test.TestOutbox;
import dev.waybill.outbox.test.TestPostgres;
import dev.waybill.outbox.test.TestRelay;
import dev.waybill.outbox.test.TestSchema;

/**
 * A relay that loses its database connection right when it records outcomes records them again
 * within seconds, not after its lease, and publishes nothing twice.
 */
class RelayBookkeepingIntegrationTests {

	private final List<AutoCloseable> resources = new ArrayList<>();

	private TestSchema schema;

	private TestTopology topology;

	private String applicationName;

	private HikariDataSource relayDataSource;

	@BeforeEach
	void setUp() {
		this.schema = TestSchema.withWaybillTables("relaybookkeeping");
		this.topology = TestRabbit.get().topology("bookkeeping");
		this.applicationName = "waybill-test-relay-" + UUID.randomUUID().toString().substring(0, 8);
		TestPostgres postgres = TestPostgres.get();
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(postgres.url() + (postgres.url().contains("?") ? "&" : "?") + "ApplicationName="
				+ this.applicationName);
		config.setUsername(postgres.user());
		config.setPassword(postgres.password());
		config.setMaximumPoolSize(4);
		this.relayDataSource = new HikariDataSource(config);
	}

	@AfterEach
	void tearDown() throws Exception {
		for (int i = this.resources.size() - 1; i >= 0; i--) {
			this.resources.get(i).close();
		}
		this.relayDataSource.close();
		this.topology.close();
		this.schema.close();
	}

	@Test
	void theRelaysConnectionsTerminatedWhileItMarksPublishedCostSecondsNotALeaseAndNoRepublish() throws Exception {
		BoundQueue queue = this.topology.exchangeWithQueue("fanout", "");
		int scopes = 20;
		TestOutbox writer = TestOutbox.on(this.schema);
		for (int i = 0; i < scopes; i++) {
			writer.writer().write(TestMessages.scope(queue.exchange(), "m" + i));
		}
		List<String> delivered = consume(queue);
		TerminatingStore store = new TerminatingStore(
				TestOutbox.on(this.relayDataSource, this.schema.tables()).store());
		// A lease far longer than the wait below: only a prompt retry of the write can pass.
		Duration lease = Duration.ofSeconds(60);
		RelayWakeUp wakeUp = new RelayWakeUp();
		TestRelay relay = TestRelay.builder(store, TestRabbit.get().transport().build())
			.wakeUp(wakeUp)
			.settings(1, scopes, lease, Duration.ofMillis(200), Duration.ofSeconds(5), RetryPolicy.defaults(), 3,
					Duration.ofSeconds(1))
			.build();
		this.resources.add(relay::stop);
		relay.start();
		wakeUp.signal();

		Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> store.terminatedAt.get() != 0);
		Awaitility.await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(50))
			.until(() -> writer.store().stats().pendingScopes() == 0);
		Duration markedAfter = Duration.ofNanos(System.nanoTime() - store.terminatedAt.get());

		assertThat(store.failedMarks).as("the relay's mark-published statement really failed").isNotEmpty();
		assertThat(markedAfter).as("marked within seconds of the termination, not after the %s lease", lease)
			.isLessThan(Duration.ofSeconds(5));
		Awaitility.await().pollDelay(Duration.ofSeconds(1)).until(() -> true); // a duplicate would arrive by now
		assertThat(delivered).hasSize(scopes).doesNotHaveDuplicates();
		OutboxStats stats = writer.store().stats();
		assertThat(stats.pendingScopes()).isZero();
		assertThat(stats.deadScopes()).isZero();
	}

	@Test
	void aRelayRenewsTheLeaseOfAScopeWhoseConfirmTakesLongerThanTheLeaseSoAnotherRelayDoesNotPublishItAgain()
			throws Exception {
		BoundQueue queue = this.topology.exchangeWithQueue("fanout", "");
		List<String> delivered = consume(queue);
		TestOutbox outbox = TestOutbox.on(this.schema);
		Duration lease = Duration.ofSeconds(1);
		TcpProxy proxy = TestRabbit.get().proxy();
		this.resources.add(proxy);
		RelayWakeUp wakeUp = new RelayWakeUp();
		TestRelay slow = TestRelay.builder(outbox.store(), TestRabbit.get().transport(proxy).build())
			.wakeUp(wakeUp)
			.settings(1, 10, lease, Duration.ofMillis(100), Duration.ofSeconds(5), RetryPolicy.defaults(), 3,
					Duration.ofSeconds(1))
			.build();
		this.resources.add(slow::stop);
		slow.start();
		Awaitility.await().pollDelay(Duration.ofMillis(500)).until(() -> true); // connected, idle

		proxy.pause(); // the broker's confirm cannot come back
		outbox.writer().write(TestMessages.scope(queue.exchange(), "held"));
		wakeUp.signal();
		Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> new JdbcTemplate(this.schema.dataSource())
			.queryForObject("SELECT count(*) FROM " + this.schema.tables().qualifiedOutboxState()
					+ " WHERE lease_owner IS NOT NULL", Integer.class) == 1);
		TestRelay other = TestRelay.builder(outbox.store(), TestRabbit.get().transport().build())
			.settings(1, 10, lease, Duration.ofMillis(100), Duration.ofSeconds(5), RetryPolicy.defaults(), 3,
					Duration.ofSeconds(1))
			.build();
		this.resources.add(other::stop);
		other.start();
		Awaitility.await().pollDelay(Duration.ofSeconds(3)).until(() -> true); // three leases

		assertThat(delivered).as("the other relay did not take over a scope still being published").isEmpty();
		proxy.restore();

		Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> outbox.store().stats().pendingScopes() == 0);
		Awaitility.await().pollDelay(Duration.ofSeconds(1)).until(() -> true); // a duplicate would arrive by now
		assertThat(delivered).hasSize(1);
	}

	private List<String> consume(BoundQueue queue) throws Exception {
		List<String> ids = new CopyOnWriteArrayList<>();
		com.rabbitmq.client.Connection consumer = TestRabbit.get().connect();
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

	/**
	 * The relay's store; the first time the relay marks scopes published, their rows are locked so
	 * the statement waits, and the relay's own backends (found by application name) are terminated
	 * while it does.
	 */
	private final class TerminatingStore extends ForwardingOutboxStore {

		private final AtomicBoolean armed = new AtomicBoolean(true);

		final AtomicLong terminatedAt = new AtomicLong();

		final List<RuntimeException> failedMarks = new CopyOnWriteArrayList<>();

		TerminatingStore(OutboxStore delegate) {
			super(delegate);
		}

		@Override
		public int markPublished(String leaseOwner, Collection<UUID> scopeIds) {
			if (this.armed.compareAndSet(true, false)) {
				terminateWhileWaiting(scopeIds);
			}
			try {
				return delegate().markPublished(leaseOwner, scopeIds);
			}
			catch (RuntimeException ex) {
				this.failedMarks.add(ex);
				throw ex;
			}
		}

		private void terminateWhileWaiting(Collection<UUID> scopeIds) {
			String state = RelayBookkeepingIntegrationTests.this.schema.tables().qualifiedOutboxState();
			String name = RelayBookkeepingIntegrationTests.this.applicationName;
			Connection lock;
			try {
				lock = TestPostgres.get().connect();
				lock.setAutoCommit(false);
				try (PreparedStatement statement = lock.prepareStatement("SELECT id FROM " + state
						+ " WHERE id = ANY(?) FOR UPDATE")) {
					statement.setArray(1, lock.createArrayOf("uuid", scopeIds.toArray()));
					statement.executeQuery().close();
				}
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
			Thread terminator = new Thread(() -> {
				try (Connection admin = TestPostgres.get().connect()) {
					Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20)).until(() -> {
						try (PreparedStatement waiting = admin.prepareStatement("SELECT count(*) FROM pg_stat_activity "
								+ "WHERE application_name = ? AND wait_event_type = 'Lock'")) {
							waiting.setString(1, name);
							try (ResultSet row = waiting.executeQuery()) {
								return row.next() && row.getInt(1) > 0;
							}
						}
					});
					try (PreparedStatement terminate = admin.prepareStatement(
							"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = ?")) {
						terminate.setString(1, name);
						terminate.executeQuery().close();
					}
					this.terminatedAt.set(System.nanoTime());
					lock.rollback();
					lock.close();
				}
				catch (Exception ex) {
					throw new IllegalStateException(ex);
				}
			}, "terminator");
			terminator.start();
		}

	}

}
