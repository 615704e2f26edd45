package dev.waybill.retention.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.transaction.support.TransactionTemplate;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.InboundMessage;
import dev.waybill.inbox.InboxOutcome;
import dev.waybill.inbox.spi.DeliveryProcessor;
import dev.waybill.inbox.test.TestInbox;
import dev.waybill.kernel.TimeOrderedUuids;
import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.RetryPolicy;
import dev.waybill.outbox.spi.ClaimedScope;
import dev.waybill.outbox.spi.OutboxStore;
import dev.waybill.outbox.test.TestOutbox;
import dev.waybill.outbox.test.TestSchema;
import dev.waybill.retention.RetentionListener;
import dev.waybill.retention.RetentionResult;
import dev.waybill.retention.test.RetentionRows;

/**
 * Every kind of row, written by the real outbox, inbox and relay bookkeeping (the broker left out:
 * the relay's claims are settled by hand, published or dead), aged, then purged: with both purges
 * on nothing is left in any of the three tables; with the incomplete purge off, exactly the
 * incomplete rows stay.
 */
class RetentionFlowIntegrationTests {

	private static final String CONSUMER = "billing";

	private static TestSchema schema;

	private static RetentionRows rows;

	private static OutboxStore outbox;

	private static OutboxPublisher publisher;

	private static TransactionTemplate transactions;

	private static DeliveryProcessor processor;

	/** Message bodies whose handling fails (every time). */
	private static final Set<String> failing = ConcurrentHashMap.newKeySet();

	private static final ConsumerRegistration<String> consumer = ConsumerRegistration.of(CONSUMER, String.class,
			(body, context) -> {
				if (failing.contains(body)) {
					throw new IllegalStateException("card declined: " + body);
				}
				context.publish("charged " + body); // a consumer scope, tied to the inbox row
			});

	@BeforeAll
	static void wire() {
		schema = TestSchema.withWaybillTables("retention_flow");
		rows = new RetentionRows(schema);
		TestInbox inbox = new TestInbox(schema);
		transactions = inbox.transactions();
		outbox = inbox.outbox().store();
		publisher = inbox.publisher();
		RetryPolicy policy = new RetryPolicy(RetryPolicy.Strategy.FIXED, Duration.ofMillis(1), 1, Duration.ofMillis(1),
				2, 0);
		processor = inbox.deliveryProcessor(policy, 0);
	}

	@AfterAll
	static void dropSchema() {
		schema.close();
	}

	@BeforeEach
	void emptyTables() {
		schema.execute("TRUNCATE " + schema.tables().qualifiedOutboxState() + ", "
				+ schema.tables().qualifiedOutboxMessage() + ", " + schema.tables().qualifiedInboxState());
		failing.clear();
	}

	/**
	 * Drives one message of every kind through and returns how many rows of each table are incomplete.
	 */
	private static long[] everyKindThroughTheRealInbox() {
		// A producer's scope, published; and one the relay dead-lettered.
		transactions.executeWithoutResult((status) -> publisher.send("orders", "placed"));
		settle(true);
		transactions.executeWithoutResult((status) -> publisher.send("orders", "refused"));
		settle(false);

		// Processed (its handler published), then the same message again: a duplicate.
		InboundMessage processed = inbound("ok");
		assertThat(processor.process(consumer, processed)).isEqualTo(InboxOutcome.PROCESSED);
		assertThat(processor.process(consumer, processed)).isEqualTo(InboxOutcome.DUPLICATE);
		settle(true);

		// Retried: failed once, redelivered through the outbox, then processed.
		InboundMessage retried = inbound("flaky");
		failing.add("flaky");
		assertThat(processor.process(consumer, retried)).isEqualTo(InboxOutcome.RETRY_SCHEDULED);
		settle(true);
		failing.remove("flaky");
		assertThat(processor.process(consumer, retried)).isEqualTo(InboxOutcome.PROCESSED);
		settle(true);

		// Faulted: failed twice, the redelivery and the forward to billing_error published.
		InboundMessage faulted = inbound("declined");
		failing.add("declined");
		assertThat(processor.process(consumer, faulted)).isEqualTo(InboxOutcome.RETRY_SCHEDULED);
		settle(true);
		assertThat(processor.process(consumer, faulted)).isEqualTo(InboxOutcome.FAULTED);
		settle(true);

		// Abandoned: failed once, and its redelivery died at the relay.
		InboundMessage abandoned = inbound("lost");
		failing.add("lost");
		assertThat(processor.process(consumer, abandoned)).isEqualTo(InboxOutcome.RETRY_SCHEDULED);
		settle(false);

		assertThat(rows.remaining()).as("rows written").containsExactly(8, 8, 4);
		age();
		// Incomplete: the dead producer scope; the faulted row, its redelivery and its forward; the
		// abandoned row and its dead redelivery.
		return new long[] { 4, 4, 2 };
	}

	@Test
	void withBothPurgesEveryTableEndsEmpty() {
		everyKindThroughTheRealInbox();
		RetentionResult result = worker(true).runOnce();
		assertThat(rows.remaining()).as("outbox_state, outbox_message, inbox_state rows left").containsExactly(0, 0, 0);
		assertThat(result.total()).isEqualTo(8 + 8 + 4);
	}

	@Test
	void withTheIncompletePurgeOffTheIncompleteRowsStay() {
		long[] incomplete = everyKindThroughTheRealInbox();
		worker(false).runOnce();
		assertThat(rows.remaining()).containsExactly(incomplete);
		assertThat(rows.count(schema.tables().qualifiedInboxState() + " WHERE processed_at IS NOT NULL")).isZero();
		assertThat(rows.count(schema.tables().qualifiedOutboxState() + " WHERE status = 'published' AND "
				+ "inbound_message_id IS NULL")).isZero();
	}

	private static RetentionWorker worker(boolean purgeIncomplete) {
		return new RetentionWorker(schema.dataSource(), schema.tables(),
				RetentionSettings.defaults().withIncomplete(purgeIncomplete, null), RetentionListener.NONE);
	}

	private static InboundMessage inbound(String body) {
		byte[] json = ("\"" + body + "\"").getBytes(StandardCharsets.UTF_8);
		return new InboundMessage(TimeOrderedUuids.next().toString(), String.class.getName(),
				TestOutbox.CONTENT_TYPE, Map.of(), json, null, null, "strings", "");
	}

	/** Does the relay's bookkeeping for every pending scope: marks it published, or dead. */
	private static void settle(boolean published) {
		Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> {
			List<ClaimedScope> claimed = outbox.claim("test-relay", Duration.ofMinutes(1), 100);
			for (ClaimedScope scope : claimed) {
				if (published) {
					outbox.markPublished("test-relay", List.of(scope.id()));
				}
				else {
					outbox.deadLetter(scope.id(), "test-relay", "refused by the test");
				}
			}
			return rows.count(schema.tables().qualifiedOutboxState() + " WHERE status = 'pending'") == 0;
		});
	}

	/** Moves every row's times 400 days back, past every retention age. */
	private static void age() {
		rows.jdbc().update("UPDATE " + schema.tables().qualifiedOutboxState() + " SET created_at = created_at - "
				+ "interval '400 days', published_at = published_at - interval '400 days', next_attempt_at = "
				+ "next_attempt_at - interval '400 days'");
		rows.jdbc().update("UPDATE " + schema.tables().qualifiedInboxState() + " SET received_at = received_at - "
				+ "interval '400 days', processed_at = processed_at - interval '400 days', faulted_at = faulted_at - "
				+ "interval '400 days'");
	}

}
