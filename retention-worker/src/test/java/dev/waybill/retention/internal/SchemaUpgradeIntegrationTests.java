package dev.waybill.retention.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.outbox.test.FakeTransport;
import dev.waybill.outbox.test.TestOutbox;
import dev.waybill.outbox.test.TestRelay;
import dev.waybill.outbox.test.TestSchema;
import dev.waybill.retention.RetentionListener;
import dev.waybill.retention.test.RetentionRows;

/**
 * The schema change of this version applied to a running installation: rows written in the
 * earlier layout, a relay publishing and a writer writing while the new changesets are applied.
 * Every message, old and new, is relayed, and retention leaves no row behind in either table.
 */
class SchemaUpgradeIntegrationTests {

	/** The first changeset the earlier version did not have. */
	private static final String FIRST_NEW_CHANGESET = "waybill-4-wal-cascade-trigger";

	private TestSchema schema;

	private JdbcTemplate jdbc;

	private final ExecutorService executor = Executors.newSingleThreadExecutor();

	@BeforeEach
	void earlierLayout() throws Exception {
		this.schema = TestSchema.withWaybillTablesBefore("schema_upgrade", FIRST_NEW_CHANGESET);
		this.jdbc = new JdbcTemplate(this.schema.dataSource());
	}

	@AfterEach
	void dropSchema() {
		this.executor.shutdownNow();
		this.schema.close();
	}

	@Test
	void oldRowsAreRelayedAndPurgedAndNewRowsFlowWhileTheChangesetsApply() throws Exception {
		assertThat(foreignKeys()).as("the earlier layout's foreign key").isOne();
		TestOutbox outbox = TestOutbox.on(this.schema);
		OutboxPublisher publisher = outbox.publisher();
		TransactionTemplate transactions = new TransactionTemplate(
				new DataSourceTransactionManager(this.schema.dataSource()));
		Set<UUID> sent = ConcurrentHashMap.newKeySet();
		for (int i = 0; i < 50; i++) {
			String body = "written before the upgrade " + i;
			transactions.executeWithoutResult((status) -> sent.add(publisher.send("orders", body)));
		}
		FakeTransport transport = new FakeTransport();
		try (TestRelay relay = outbox.relay(transport).start()) {
			AtomicBoolean writing = new AtomicBoolean(true);
			Future<?> writer = this.executor.submit(() -> {
				for (int i = 0; writing.get(); i++) {
					String body = "written during the upgrade " + i;
					transactions.executeWithoutResult((status) -> sent.add(publisher.send("orders", body)));
				}
			});
			Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> delivered(transport).size() >= 50);

			this.schema.migrate();

			int atUpgrade = sent.size();
			Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> writer.isDone() || sent.size() >= atUpgrade + 50);
			writing.set(false);
			writer.get();
			Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> delivered(transport).containsAll(sent));
			Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> count("status = 'published'") == sent.size());
		}
		assertThat(foreignKeys()).as("foreign keys left").isZero();

		this.jdbc.update("UPDATE " + this.schema.tables().qualifiedOutboxState()
				+ " SET published_at = now() - interval '365 days'");
		new RetentionWorker(this.schema.dataSource(), this.schema.tables(), RetentionSettings.defaults(),
				RetentionListener.NONE).runOnce();

		assertThat(new RetentionRows(this.schema).remaining()).as("outbox_state, outbox_message, inbox_state rows left")
			.containsExactly(0, 0, 0);
	}

	private static Set<UUID> delivered(FakeTransport transport) {
		return transport.delivered().stream().map(OutboxMessage::messageId).collect(Collectors.toSet());
	}

	private long count(String where) {
		Long count = this.jdbc.queryForObject(
				"SELECT count(*) FROM " + this.schema.tables().qualifiedOutboxState() + " WHERE " + where, Long.class);
		return (count != null) ? count : 0;
	}

	private int foreignKeys() {
		Integer count = this.jdbc.queryForObject("SELECT count(*) FROM pg_constraint WHERE contype = 'f' "
				+ "AND conrelid = ?::regclass", Integer.class, this.schema.tables().qualifiedOutboxMessage());
		return (count != null) ? count : 0;
	}

}
