package dev.waybill.test;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import dev.waybill.outbox.OutboxAdmin;
import dev.waybill.outbox.OutboxStats;

/**
 * What Waybill still has to do in a test: outbox scopes pending, handlers running, deliveries owed
 * to local consumers and, broker-less, messages queued in memory. {@link #idle()} is the condition
 * {@link WaybillTestHarness#awaitIdle()} waits for; {@link #describe()} says why it is not met.
 *
 * @since 0.1
 */
final class UnderWay {

	/** At most this many entries of one kind are listed. */
	static final int SHOWN_PER_KIND = 30;

	private final Observations observations;

	private final Supplier<@Nullable OutboxAdmin> admin;

	private final @Nullable InMemoryTransport inMemory;

	UnderWay(Observations observations, Supplier<@Nullable OutboxAdmin> admin, @Nullable InMemoryTransport inMemory) {
		this.observations = observations;
		this.admin = admin;
		this.inMemory = inMemory;
	}

	boolean idle() {
		OutboxAdmin outbox = this.admin.get();
		if (outbox != null && outbox.stats().pendingScopes() > 0) {
			return false;
		}
		return this.observations.busy() == 0 && this.observations.inFlight().isEmpty()
				&& (this.inMemory == null || this.inMemory.queued() == 0);
	}

	String describe() {
		List<String> parts = new ArrayList<>();
		OutboxAdmin outbox = this.admin.get();
		if (outbox != null) {
			try {
				OutboxStats stats = outbox.stats();
				parts.add(stats.pendingScopes() + " outbox scopes pending (" + stats.pendingMessages() + " messages), "
						+ stats.deadScopes() + " dead");
			}
			catch (RuntimeException ex) {
				parts.add("outbox stats unavailable: " + ex);
			}
		}
		parts.add(this.observations.busy() + " handlers running");
		List<String> inFlight = this.observations.inFlight();
		parts.add(inFlight.size() + " deliveries on their way to local handlers" + (inFlight.isEmpty() ? ""
				: " " + inFlight.subList(0, Math.min(inFlight.size(), SHOWN_PER_KIND))));
		if (this.inMemory != null) {
			parts.add(this.inMemory.queued() + " queued in memory");
		}
		else {
			int relayedInFlight = this.observations.relayedInFlight();
			if (relayedInFlight > 0) {
				parts.add(relayedInFlight + " of those deliveries confirmed by the broker but not received here: if "
						+ "that lasts, another consumer of the queue may be taking them (a running instance of the "
						+ "service, another test run on the same broker). The test uses the queues its @Consumer "
						+ "handlers name; give it a RabbitMQ virtual host of its own (spring.rabbitmq.virtual-host) "
						+ "or TestTransport.IN_MEMORY");
			}
		}
		return String.join("; ", parts);
	}

}
