package dev.waybill.outbox.internal.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.support.TransactionTemplate;

import dev.waybill.outbox.MessageType;
import dev.waybill.outbox.RetryPolicy;
import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.outbox.test.FakeTransport;
import dev.waybill.outbox.test.PrivatePostgres;
import dev.waybill.outbox.test.ReplicatedPostgres;
import dev.waybill.outbox.test.ReplicatedPostgres.Replication;
import dev.waybill.outbox.test.TestOutbox;
import dev.waybill.outbox.test.TestRelay;
import dev.waybill.outbox.test.TestSchema;

/**
 * A primary with an asynchronous streaming standby, failed over while the standby lags: the order
 * the primary acknowledged last is gone from the new primary, business row and outbox rows alike.
 * Without {@code await-standbys} its message was published all the same (an announcement of an
 * order that does not exist); with it, the relay holds the message until a standby has the commit,
 * so the message is lost with its order, and published as soon as the standby catches up when
 * there is no failover.
 */
class StandbyReplicationIntegrationTests {

	private ReplicatedPostgres servers;

	private TestSchema schema;

	private TestOutbox outbox;

	private TestRelay relay;

	private final FakeTransport broker = new FakeTransport();

	@AfterEach
	void tearDown() {
		if (this.relay != null) {
			this.relay.close();
		}
		this.broker.close();
		if (this.schema != null) {
			this.schema.close();
		}
		if (this.servers != null) {
			this.servers.close();
		}
	}

	@Test
	void withoutAwaitingStandbysTheMessageOfAnOrderTheFailoverLostIsPublished() throws Exception {
		start(0);
		UUID lost = order();
		this.servers.cutStandby();
		UUID orphan = order();
		await().until(() -> published().contains(orphan));
		this.servers.failOver();
		await().until(() -> orderExists(lost));
		assertThat(orderExists(orphan)).as("the order after the standby was cut, on the new primary").isFalse();
		assertThat(published()).as("published, the lost order's message among them").contains(lost, orphan);
	}

	@Test
	void awaitingAStandbyTheMessageOfAnOrderTheFailoverLostIsNeverPublished() throws Exception {
		start(1);
		UUID kept = order();
		await().until(() -> published().contains(kept));
		this.servers.cutStandby();
		UUID lost = order();
		// Held: the relay took it and waits for the standby, which receives nothing.
		await().until(() -> this.relay.standbysAwaitedFor() != null);
		assertThat(published()).doesNotContain(lost);
		this.servers.failOver();
		await().until(() -> orderExists(kept));
		assertThat(orderExists(lost)).as("the lost order on the new primary").isFalse();
		assertThat(new JdbcTemplate(this.schema.dataSource()).queryForObject("SELECT count(*) FROM "
				+ this.schema.tables().qualifiedOutboxMessage() + " WHERE message_id = ?", Integer.class, lost))
			.as("the lost order's outbox rows").isZero();
		// The relay runs on the new primary, which has no standby yet: it holds what it finds there.
		UUID afterFailover = order();
		await().until(() -> this.relay.standbysAwaitedFor() != null);
		assertThat(published()).as("published").containsExactly(kept);
		assertThat(orderExists(afterFailover)).isTrue();
	}

	@Test
	void awaitingAStandbyAMessageIsHeldWhileTheStandbyLagsAndPublishedOnceItCatchesUp() throws Exception {
		start(1);
		UUID first = order();
		await().until(() -> published().contains(first));
		this.servers.cutStandby();
		UUID held = order();
		await().until(() -> this.relay.standbysAwaitedFor() != null);
		assertThat(published()).doesNotContain(held);
		this.servers.reconnectStandby();
		await().until(() -> published().contains(held));
		await().until(() -> this.relay.standbysAwaitedFor() == null);
	}

	@Test
	void aRoleThatCannotReadTheStandbysPositionsIsRefusedAtStartUp() throws Exception {
		this.servers = ReplicatedPostgres.start("standby-role", Replication.ASYNCHRONOUS);
		this.servers.primary().execute("CREATE ROLE relay_without_stats LOGIN");
		DriverManagerDataSource unprivileged = new DriverManagerDataSource(this.servers.url(PrivatePostgres.DATABASE),
				"relay_without_stats", "");
		assertThatIllegalStateException().isThrownBy(() -> StandbyReplication.of(unprivileged, 1))
			.withMessageContaining("await-standbys=1")
			.withMessageContaining("GRANT pg_monitor");
		this.servers.primary().execute("GRANT pg_monitor TO relay_without_stats");
		assertThat(StandbyReplication.of(unprivileged, 1).enabled()).isTrue();
	}

	private void start(int standbys) throws Exception {
		this.servers = ReplicatedPostgres.start("standby", Replication.ASYNCHRONOUS);
		this.schema = TestSchema.withWaybillTables(this.servers.database(PrivatePostgres.DATABASE), "standby");
		this.schema.execute("CREATE TABLE " + this.schema.name() + ".orders (id uuid PRIMARY KEY)");
		this.outbox = TestOutbox.on(this.schema);
		TestRelay.Builder builder = this.outbox.relay(this.broker)
			.settings(1, 20, Duration.ofSeconds(30), Duration.ofMillis(200), Duration.ofSeconds(2), RetryPolicy.defaults(), 3,
					Duration.ofSeconds(1));
		if (standbys > 0) {
			builder.awaitStandbys(this.schema.dataSource(), standbys);
		}
		this.relay = builder.build();
		this.outbox.enableDirectDispatch(this.relay);
		this.relay.start();
	}

	/** Places an order: its row and its message in one transaction; the order's id is its message's. */
	private UUID order() {
		UUID[] id = new UUID[1];
		new TransactionTemplate(new DataSourceTransactionManager(this.schema.dataSource())).executeWithoutResult((status) -> {
			id[0] = this.outbox.publisher().send("orders", new OrderPlaced());
			new JdbcTemplate(this.schema.dataSource()).update("INSERT INTO " + this.schema.name() + ".orders VALUES (?)", id[0]);
		});
		return id[0];
	}

	private boolean orderExists(UUID id) {
		return new JdbcTemplate(this.schema.dataSource())
			.queryForObject("SELECT count(*) FROM " + this.schema.name() + ".orders WHERE id = ?", Integer.class, id) == 1;
	}

	private List<UUID> published() {
		return this.broker.delivered().stream().map(OutboxMessage::messageId).toList();
	}

	private static ConditionFactory await() {
		return Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
			.ignoreExceptions();
	}

	@MessageType("test.order-placed")
	record OrderPlaced() {
	}

}
