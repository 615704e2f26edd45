package dev.waybill.outbox.internal;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.waybill.outbox.spi.OutboxScope;

/**
 * This process's relay, taking scopes to publish right after their transaction commits instead of
 * claiming them: the writer writes such a scope already leased to the relay
 * ({@link #reserve(OutboxScope)}), so no other relay claims it, and hands it over after the
 * commit ({@link DirectScopes}). A scope the relay cannot take is written unleased and claimed.
 *
 * @since 0.1
 */
public interface DirectDispatcher {

	/**
	 * Leases a scope about to be written to this process's relay, if it can publish it at once
	 * after the commit: it runs with its circuit closed, has room, and the scope has no ordering
	 * key and is due now.
	 * @param scope the scope
	 * @return the lease to write the scope with, or {@literal null} to write it unleased
	 */
	@Nullable Lease reserve(OutboxScope scope);

	/**
	 * Publishes scopes whose transaction committed; returns at once.
	 * @param leases their leases, from {@link #reserve(OutboxScope)}
	 */
	void committed(List<Lease> leases);

	/**
	 * Forgets scopes whose transaction did not commit.
	 * @param leases their leases, from {@link #reserve(OutboxScope)}
	 */
	void abandoned(List<Lease> leases);

	/**
	 * Takes scopes whose transaction's outcome is unknown: the connection broke during the commit,
	 * so PostgreSQL may have committed them although the caller got an exception. Giving their
	 * leases back (a write fenced by the lease, which finds nothing when they rolled back) makes
	 * committed ones due at once instead of after their lease. By default they are forgotten, and
	 * committed ones are delivered once their leases expire.
	 * @param leases their leases, from {@link #reserve(OutboxScope)}
	 * @since 0.1
	 */
	default void outcomeUnknown(List<Lease> leases) {
		abandoned(leases);
	}

	/**
	 * A scope leased to this process's relay at write time.
	 * @param scope the scope
	 * @param owner the lease owner written with it
	 * @param duration the lease written with it, from the write
	 * @param writtenAt when it was leased, just before the write
	 */
	record Lease(OutboxScope scope, String owner, Duration duration, Instant writtenAt) {
	}

}
