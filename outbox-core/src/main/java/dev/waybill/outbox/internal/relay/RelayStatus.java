package dev.waybill.outbox.internal.relay;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import dev.waybill.outbox.spi.Transport;

/**
 * What a {@link Relay}'s health reads ({@link Relay#status()}): whether its threads live, and why
 * the broker, the claims or the standbys hold it back. Reads only; never waits for the relay.
 *
 * @since 0.1
 */
public final class RelayStatus {

	private final Supplier<RelayThreads> threads;

	private final int threadsWithoutDirect;

	private final BooleanSupplier direct;

	private final BrokerOutageLog outages;

	private final Transport transport;

	private final ClaimFailureLog claimFailures;

	private final Supplier<StandbyReplication> replication;

	RelayStatus(Supplier<RelayThreads> threads, int threadsWithoutDirect, BooleanSupplier direct,
			BrokerOutageLog outages, Transport transport, ClaimFailureLog claimFailures,
			Supplier<StandbyReplication> replication) {
		this.threads = threads;
		this.threadsWithoutDirect = threadsWithoutDirect;
		this.direct = direct;
		this.outages = outages;
		this.transport = transport;
		this.claimFailures = claimFailures;
		this.replication = replication;
	}

	/**
	 * Returns how many of the threads the relay started (workers, settler, lease renewer) are
	 * alive; all of them while it runs, unless one died.
	 * @return the live threads
	 */
	public int liveThreads() {
		return this.threads.get().live();
	}

	/**
	 * Returns how many threads the relay starts: its workers, the settler, the lease renewer, the
	 * thread that commits claims and, with direct dispatch, its worker.
	 * @return the threads of a running relay
	 */
	public int expectedThreads() {
		return this.threadsWithoutDirect + (this.direct.getAsBoolean() ? 1 : 0);
	}

	/**
	 * Returns why the broker could not be used the last time it failed, as the transport described
	 * it (no credentials).
	 * @return the description, or {@code "unknown reason"} before any failure
	 */
	public String lastBrokerFailure() {
		return this.outages.lastFailure();
	}

	/**
	 * Says what keeps the broker from taking publishes while it is connected (a resource alarm).
	 * @return the transport's account of it, or {@literal null} when nothing does
	 * @see Transport#blocked()
	 */
	public @Nullable String brokerBlocked() {
		return this.transport.blocked();
	}

	/**
	 * Returns how long the relay's claims have been failing, most often because the database is
	 * unavailable: nothing is claimed, so nothing is delivered, whatever the broker.
	 * @return the time since the first of the failures, or {@literal null} while claims succeed
	 */
	public @Nullable Duration claimsFailingFor() {
		return this.claimFailures.failingFor();
	}

	/**
	 * Returns why the relay's last claim failed: the driver's or the database's reason, without
	 * the statement.
	 * @return the reason, or {@code ""} before any failure
	 */
	public String lastClaimFailure() {
		return this.claimFailures.lastReason();
	}

	/**
	 * Returns how long the relay has been holding messages back for standbys to catch up, when
	 * longer than a second: standbys that stream take milliseconds.
	 * @return how long, or {@literal null} when it is not ({@link Relay#awaitStandbys} not called,
	 * or they have what it publishes)
	 */
	public @Nullable Duration standbysAwaitedFor() {
		return this.replication.get().stalledFor();
	}

}
