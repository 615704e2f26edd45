package dev.waybill.retention;

/**
 * What one run, or one batch, of the retention worker purged.
 *
 * @param skipped whether the run did nothing because another worker held the retention lock
 * @param batches the batches (transactions) that ran
 * @param outboxStates outbox scopes deleted
 * @param outboxMessages outbox messages deleted with their scopes (by the cascade)
 * @param inboxStates inbox rows deleted
 * @param archivedMessages archived messages deleted (older than {@code archive-after})
 * @since 0.1
 */
public record RetentionResult(boolean skipped, int batches, long outboxStates, long outboxMessages, long inboxStates,
		long archivedMessages) {

	/** A run that found another worker purging. */
	public static final RetentionResult SKIPPED = new RetentionResult(true, 0, 0, 0, 0, 0);

	/** A run that purged nothing. */
	public static final RetentionResult NOTHING = new RetentionResult(false, 0, 0, 0, 0, 0);

	/**
	 * A result that deleted no archived messages.
	 * @param skipped whether the run did nothing because another worker held the retention lock
	 * @param batches the batches (transactions) that ran
	 * @param outboxStates outbox scopes deleted
	 * @param outboxMessages outbox messages deleted with their scopes (by the cascade)
	 * @param inboxStates inbox rows deleted
	 */
	public RetentionResult(boolean skipped, int batches, long outboxStates, long outboxMessages, long inboxStates) {
		this(skipped, batches, outboxStates, outboxMessages, inboxStates, 0);
	}

	/**
	 * Returns the sum of this result and a batch's.
	 * @param batch what one more batch purged
	 * @return the sum
	 */
	public RetentionResult plus(RetentionResult batch) {
		return new RetentionResult(this.skipped && batch.skipped, this.batches + batch.batches,
				this.outboxStates + batch.outboxStates, this.outboxMessages + batch.outboxMessages,
				this.inboxStates + batch.inboxStates, this.archivedMessages + batch.archivedMessages);
	}

	/**
	 * Returns the rows deleted from every table together.
	 * @return the total
	 */
	public long total() {
		return this.outboxStates + this.outboxMessages + this.inboxStates + this.archivedMessages;
	}

}
