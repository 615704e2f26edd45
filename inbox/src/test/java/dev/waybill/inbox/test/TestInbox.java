package dev.waybill.inbox.test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

import dev.waybill.inbox.InboundMessage;
import dev.waybill.inbox.InboxAdmin;
import dev.waybill.inbox.internal.InboxProcessor;
import dev.waybill.inbox.internal.InboxResources;
import dev.waybill.inbox.internal.InboxSettings;
import dev.waybill.inbox.internal.JdbcInboxAdmin;
import dev.waybill.inbox.internal.jdbc.InboxStore;
import dev.waybill.inbox.spi.DeliveryProcessor;
import dev.waybill.kernel.MessageTypes;
import dev.waybill.kernel.RelayWakeUp;
import dev.waybill.kernel.TimeOrderedUuids;
import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.RetryPolicy;
import dev.waybill.outbox.spi.ConnectionOutboxWriter;
import dev.waybill.outbox.spi.ConsumerOutbox;
import dev.waybill.outbox.test.TestOutbox;
import dev.waybill.outbox.test.TestSchema;

/**
 * An inbox wired by hand, without Spring Boot, on a {@link TestSchema} with Waybill's tables: a
 * {@link TestOutbox}, a DataSource transaction manager and Jackson. Builds
 * processors and inbound messages and reads back the inbox and outbox rows.
 */
public final class TestInbox {

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {
	};

	private final TestSchema schema;

	private final JdbcTemplate jdbc;

	private final DataSourceTransactionManager transactionManager;

	private final TestOutbox outbox;

	private final InboxStore store;

	public TestInbox(TestSchema schema) {
		this(schema, schema.dataSource());
	}

	/**
	 * Creates an inbox on the tables of {@code schema} whose transactions, inbox and outbox use
	 * {@code dataSource}, a DataSource of the same database.
	 */
	public TestInbox(TestSchema schema, DataSource dataSource) {
		this.schema = schema;
		this.jdbc = new JdbcTemplate(dataSource);
		this.transactionManager = new DataSourceTransactionManager(dataSource);
		this.outbox = TestOutbox.on(dataSource, schema.tables());
		this.store = new InboxStore(dataSource, schema.tables());
	}

	/**
	 * Returns a processor with a retry policy without jitter.
	 * @param interval the wait before the first redelivery, doubling after each
	 * @param maxAttempts failed deliveries before the error queue
	 * @param immediateRetries in-process retries
	 * @return the processor
	 */
	public InboxProcessor processor(Duration interval, int maxAttempts, int immediateRetries) {
		return new InboxProcessor(resources(), settings(interval, maxAttempts, immediateRetries));
	}

	/**
	 * Returns processor settings with a retry policy without jitter.
	 * @param interval the wait before the first redelivery, doubling after each
	 * @param maxAttempts failed deliveries before the error queue
	 * @param immediateRetries in-process retries
	 * @return the settings
	 */
	public InboxSettings settings(Duration interval, int maxAttempts, int immediateRetries) {
		RetryPolicy policy = new RetryPolicy(RetryPolicy.Strategy.EXPONENTIAL, interval, 2, interval.multipliedBy(100),
				maxAttempts, 0);
		return InboxSettings.of(policy, immediateRetries);
	}

	/**
	 * Returns what a processor on this inbox works with: its transaction manager, inbox, outbox,
	 * publisher and Jackson.
	 * @return the resources
	 */
	public InboxResources resources() {
		return new InboxResources(this.transactionManager, this.store, this.outbox.writer(), this.outbox.publisher(),
				this.outbox.consumerOutbox(), TestOutbox.serializer(), this.outbox.wakeUp());
	}

	/**
	 * Returns a processor with a retry policy, as a transport sees it: for tests of other modules
	 * that hand deliveries to an inbox wired by hand.
	 * @param policy the retry policy
	 * @param immediateRetries in-process retries
	 * @return the processor
	 */
	public DeliveryProcessor deliveryProcessor(RetryPolicy policy, int immediateRetries) {
		return new InboxProcessor(resources(), InboxSettings.of(policy, immediateRetries));
	}

	/**
	 * Returns the admin of this inbox's rows, on its transaction manager.
	 * @return the admin
	 */
	public InboxAdmin admin() {
		return new JdbcInboxAdmin(this.transactionManager, this.store);
	}

	public JdbcTemplate jdbc() {
		return this.jdbc;
	}

	public TransactionTemplate transactions() {
		return new TransactionTemplate(this.transactionManager);
	}

	/**
	 * Returns the outbox the inbox writes to, on the same DataSource and wake-up.
	 * @return the outbox
	 */
	public TestOutbox outbox() {
		return this.outbox;
	}

	public OutboxPublisher publisher() {
		return this.outbox.publisher();
	}

	/**
	 * Returns the outbox store as the writer of redeliveries and faults.
	 * @return the writer
	 */
	public ConnectionOutboxWriter writer() {
		return this.outbox.writer();
	}

	/**
	 * Returns what ties a handler's publications to its inbound message.
	 * @return the consumer outbox of {@link #publisher()}
	 */
	public ConsumerOutbox consumerOutbox() {
		return this.outbox.consumerOutbox();
	}

	public RelayWakeUp wakeUp() {
		return this.outbox.wakeUp();
	}

	public InboxStore store() {
		return this.store;
	}

	/**
	 * Returns a first delivery of {@code payload} as Waybill publishes it: a new id, the type of
	 * its class, a JSON body, conversation {@code conv-1}, to the exchange of its type.
	 * @param payload the message
	 * @return the delivery
	 */
	public static InboundMessage inbound(Object payload) {
		String type = MessageTypes.nameOf(payload);
		return new InboundMessage(TimeOrderedUuids.next().toString(), type, TestOutbox.CONTENT_TYPE,
				Map.of("tenant", "acme"), JSON.writeValueAsBytes(payload), null, "conv-1", type, "");
	}

	/**
	 * Returns {@code message} with another id, type and body.
	 */
	public static InboundMessage altered(InboundMessage message, @Nullable String id, @Nullable String type,
			String body) {
		return new InboundMessage(id, type, message.contentType(), message.headers(),
				body.getBytes(StandardCharsets.UTF_8), message.correlationId(), message.conversationId(),
				message.exchange(), message.routingKey());
	}

	/**
	 * Returns the inbox row of a message and consumer.
	 * @return the row, or {@literal null} when there is none
	 */
	public @Nullable Map<String, Object> inboxRow(UUID messageId, String consumerId) {
		List<Map<String, Object>> rows = this.jdbc.queryForList("SELECT * FROM " + this.schema.tables().qualifiedInboxState()
				+ " WHERE message_id = ? AND consumer_id = ?", messageId, consumerId);
		return rows.isEmpty() ? null : rows.get(0);
	}

	/**
	 * Returns the outbox messages routed with {@code routingKey}, oldest first, each with its scope's
	 * {@code inbound_message_id} and {@code consumer_id}, {@code not_before} compared with the
	 * database clock as {@code due_later} and with the send time as {@code delay_seconds}, and
	 * {@code headers} as a map.
	 */
	public List<Map<String, Object>> outboxMessages(String routingKey) {
		List<Map<String, Object>> rows = this.jdbc.queryForList("SELECT m.*, m.headers::text AS header_json, "
				+ "m.not_before > now() AS due_later, extract(epoch FROM m.not_before - m.created_at)::float8 AS delay_seconds, "
				+ "s.inbound_message_id, s.consumer_id FROM "
				+ this.schema.tables().qualifiedOutboxMessage() + " m JOIN " + this.schema.tables().qualifiedOutboxState()
				+ " s ON s.id = m.outbox_id WHERE m.routing_key = ? ORDER BY m.sequence_number", routingKey);
		rows.forEach((row) -> row.put("headers", JSON.readValue((String) row.remove("header_json"), MAP)));
		return rows;
	}

	/**
	 * Returns the outbox messages published while handling {@code inboundMessageId}, oldest first.
	 */
	public List<Map<String, Object>> publishedWhileHandling(UUID inboundMessageId) {
		return this.jdbc.queryForList("SELECT m.*, s.inbound_message_id, s.consumer_id FROM "
				+ this.schema.tables().qualifiedOutboxMessage() + " m JOIN " + this.schema.tables().qualifiedOutboxState()
				+ " s ON s.id = m.outbox_id WHERE s.inbound_message_id = ? AND m.destination <> '' "
				+ "ORDER BY m.sequence_number", inboundMessageId);
	}

}
