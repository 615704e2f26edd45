package dev.waybill.outbox.hibernate.jpa;

import java.time.Instant;
import java.util.UUID;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.FetchType;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.ManyToOne;
import jakarta.persistence.Table;

import org.hibernate.annotations.Immutable;
import org.jspecify.annotations.Nullable;

/**
 * A read-only JPA view of an {@code outbox_message} row: one message of a scope (JPQL entity name
 * {@code WaybillOutboxMessage}). {@code headers} is the JSON text of the {@code jsonb} column.
 *
 * @since 0.1
 */
@Entity(name = "WaybillOutboxMessage")
@Table(schema = WaybillNamingStrategy.SCHEMA, name = WaybillNamingStrategy.OUTBOX_MESSAGE)
@Immutable
public class OutboxMessageEntity {

	@Id
	@GeneratedValue(strategy = GenerationType.IDENTITY)
	@Column(name = "sequence_number", nullable = false)
	private Long sequenceNumber;

	@ManyToOne(fetch = FetchType.LAZY, optional = false)
	@JoinColumn(name = "outbox_id", nullable = false)
	private OutboxStateEntity scope;

	@Column(name = "message_id", nullable = false)
	private UUID messageId;

	@Column(name = "destination", nullable = false, columnDefinition = "text")
	private String destination;

	@Column(name = "routing_key", nullable = false, columnDefinition = "text")
	private String routingKey;

	@Column(name = "message_type", nullable = false, columnDefinition = "text")
	private String messageType;

	@Column(name = "content_type", nullable = false, columnDefinition = "text")
	private String contentType;

	@Column(name = "headers", nullable = false, columnDefinition = "jsonb")
	private String headers;

	@Column(name = "body", nullable = false)
	private byte[] body;

	@Column(name = "correlation_id", columnDefinition = "text")
	private @Nullable String correlationId;

	@Column(name = "conversation_id", columnDefinition = "text")
	private @Nullable String conversationId;

	@Column(name = "source_host", columnDefinition = "text")
	private @Nullable String sourceHost;

	@Column(name = "created_at", nullable = false)
	private Instant createdAt;

	@Column(name = "not_before")
	private @Nullable Instant notBefore;

	protected OutboxMessageEntity() {
	}

	/** The global publish order. */
	public Long getSequenceNumber() {
		return this.sequenceNumber;
	}

	public OutboxStateEntity getScope() {
		return this.scope;
	}

	public UUID getMessageId() {
		return this.messageId;
	}

	public String getDestination() {
		return this.destination;
	}

	public String getRoutingKey() {
		return this.routingKey;
	}

	public String getMessageType() {
		return this.messageType;
	}

	public String getContentType() {
		return this.contentType;
	}

	public String getHeaders() {
		return this.headers;
	}

	public byte[] getBody() {
		return this.body.clone();
	}

	public @Nullable String getCorrelationId() {
		return this.correlationId;
	}

	public @Nullable String getConversationId() {
		return this.conversationId;
	}

	public @Nullable String getSourceHost() {
		return this.sourceHost;
	}

	public Instant getCreatedAt() {
		return this.createdAt;
	}

	public @Nullable Instant getNotBefore() {
		return this.notBefore;
	}

}
