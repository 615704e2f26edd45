package dev.waybill.outbox.hibernate.jpa;

import java.io.Serializable;
import java.time.Instant;
import java.util.UUID;

import jakarta.persistence.Column;
import jakarta.persistence.Embeddable;
import jakarta.persistence.EmbeddedId;
import jakarta.persistence.Entity;
import jakarta.persistence.Table;

import org.hibernate.annotations.Immutable;
import org.jspecify.annotations.Nullable;

/**
 * A read-only JPA view of an {@code inbox_state} row: one inbound message as seen by one
 * consumer (JPQL entity name {@code WaybillInboxState}).
 *
 * @since 0.1
 */
@Entity(name = "WaybillInboxState")
@Table(schema = WaybillNamingStrategy.SCHEMA, name = WaybillNamingStrategy.INBOX_STATE)
@Immutable
public class InboxStateEntity {

	@EmbeddedId
	private Key key;

	@Column(name = "received_at", nullable = false)
	private Instant receivedAt;

	@Column(name = "receive_count", nullable = false)
	private int receiveCount;

	@Column(name = "processed_at")
	private @Nullable Instant processedAt;

	@Column(name = "attempts", nullable = false)
	private int attempts;

	@Column(name = "last_error", columnDefinition = "text")
	private @Nullable String lastError;

	@Column(name = "faulted_at")
	private @Nullable Instant faultedAt;

	protected InboxStateEntity() {
	}

	public Key getKey() {
		return this.key;
	}

	public Instant getReceivedAt() {
		return this.receivedAt;
	}

	public int getReceiveCount() {
		return this.receiveCount;
	}

	public @Nullable Instant getProcessedAt() {
		return this.processedAt;
	}

	public int getAttempts() {
		return this.attempts;
	}

	public @Nullable String getLastError() {
		return this.lastError;
	}

	public @Nullable Instant getFaultedAt() {
		return this.faultedAt;
	}

	/**
	 * The primary key: message id and consumer id.
	 * @param messageId the inbound message id
	 * @param consumerId the consumer (its queue name)
	 */
	@Embeddable
	public record Key(@Column(name = "message_id", nullable = false) UUID messageId,
			@Column(name = "consumer_id", nullable = false, columnDefinition = "text") String consumerId)
			implements Serializable {
	}

}
