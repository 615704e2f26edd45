package dev.waybill.outbox.hibernate.jpa;

import java.time.Instant;
import java.util.UUID;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import org.hibernate.annotations.Immutable;
import org.jspecify.annotations.Nullable;

/**
 * A read-only JPA view of an {@code outbox_state} row: one outbox scope. For queries (JPQL entity
 * name {@code WaybillOutboxState}); the relay and the retention worker own the rows, so the
 * mapping is {@link Immutable}.
 *
 * @since 0.1
 */
@Entity(name = "WaybillOutboxState")
@Table(schema = WaybillNamingStrategy.SCHEMA, name = WaybillNamingStrategy.OUTBOX_STATE)
@Immutable
public class OutboxStateEntity {

	@Id
	@Column(name = "id", nullable = false)
	private UUID id;

	@Column(name = "created_at", nullable = false)
	private Instant createdAt;

	/** {@code pending}, {@code published} or {@code dead}. */
	@Column(name = "status", nullable = false, columnDefinition = "text")
	private String status;

	@Column(name = "published_at")
	private @Nullable Instant publishedAt;

	@Column(name = "attempts", nullable = false)
	private int attempts;

	@Column(name = "next_attempt_at", nullable = false)
	private Instant nextAttemptAt;

	@Column(name = "last_error", columnDefinition = "text")
	private @Nullable String lastError;

	@Column(name = "lease_owner", columnDefinition = "text")
	private @Nullable String leaseOwner;

	@Column(name = "lease_until")
	private @Nullable Instant leaseUntil;

	@Column(name = "inbound_message_id")
	private @Nullable UUID inboundMessageId;

	@Column(name = "consumer_id", columnDefinition = "text")
	private @Nullable String consumerId;

	@Column(name = "message_count", nullable = false)
	private int messageCount;

	protected OutboxStateEntity() {
	}

	public UUID getId() {
		return this.id;
	}

	public Instant getCreatedAt() {
		return this.createdAt;
	}

	public String getStatus() {
		return this.status;
	}

	public @Nullable Instant getPublishedAt() {
		return this.publishedAt;
	}

	public int getAttempts() {
		return this.attempts;
	}

	public Instant getNextAttemptAt() {
		return this.nextAttemptAt;
	}

	public @Nullable String getLastError() {
		return this.lastError;
	}

	public @Nullable String getLeaseOwner() {
		return this.leaseOwner;
	}

	public @Nullable Instant getLeaseUntil() {
		return this.leaseUntil;
	}

	public @Nullable UUID getInboundMessageId() {
		return this.inboundMessageId;
	}

	public @Nullable String getConsumerId() {
		return this.consumerId;
	}

	public int getMessageCount() {
		return this.messageCount;
	}

}
