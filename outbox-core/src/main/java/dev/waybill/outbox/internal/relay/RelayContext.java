package dev.waybill.outbox.internal.relay;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import dev.waybill.kernel.RelayWakeUp;
import dev.waybill.outbox.internal.observation.RelayObservation;
import dev.waybill.outbox.spi.OutboxStore;
import dev.waybill.outbox.spi.Transport;

/**
 * What a relay worker works with. The settler and the commits thread are new on every start and
 * the observation can be set at any time, so they are looked up on each use: a worker that
 * outlived a stop hands its outcomes and commits to the running ones.
 *
 * @param id the relay's id, from which lease owners are derived
 * @param store where the scopes are
 * @param transport the broker
 * @param settings how the relay runs
 * @param wakeUp signalled when work is waiting
 * @param breaker stops claims while the broker is unreachable
 * @param claimFailures logs failing claims
 * @param settlers the settler of the relay's current start, which records the outcomes
 * @param leases the leases the relay holds
 * @param commits the claim commits of the relay's current start, off the worker's thread
 * @param observations how each published message is observed
 * @param pacing when to claim, and pauses that end on stop
 * @param outages notes broker failures for the outage log
 * @param active whether the relay claims and publishes: started, not stopped, no thread died
 * @param claims counts claims, for distinct lease owners
 * @param replication what a worker waits for before it publishes what it claimed or was handed
 * @param lanes the stores the workers claim from
 * @since 0.1
 */
record RelayContext(String id, OutboxStore store, Transport transport, RelaySettings settings, RelayWakeUp wakeUp,
		CircuitBreaker breaker, ClaimFailureLog claimFailures, Supplier<Settler> settlers, Leases leases,
		Supplier<ClaimCommits> commits, Supplier<RelayObservation> observations, RelayPacing pacing,
		BrokerOutageLog outages, BooleanSupplier active, AtomicLong claims,
		StandbyReplication replication, RelayLanes lanes) {

	Settler settler() {
		return this.settlers.get();
	}

	ClaimCommits claimCommits() {
		return this.commits.get();
	}

	RelayObservation observation() {
		return this.observations.get();
	}

	boolean running() {
		return this.active.getAsBoolean();
	}

	String nextLeaseOwner(int worker) {
		// A distinct owner per claim fences a worker even against its own later claim of a scope
		// whose lease it let expire.
		return this.id + "/" + worker + "/" + this.claims.incrementAndGet();
	}

}
