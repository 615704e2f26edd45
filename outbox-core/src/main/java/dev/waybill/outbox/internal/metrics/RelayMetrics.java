package dev.waybill.outbox.internal.metrics;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.jspecify.annotations.Nullable;

import dev.waybill.outbox.OutboxStats;
import dev.waybill.outbox.internal.OutboxBacklog;
import dev.waybill.outbox.internal.relay.LeaseOwners;
import dev.waybill.outbox.relay.CircuitState;
import dev.waybill.outbox.relay.RelayListener;
import dev.waybill.outbox.spi.ClaimedScope;
import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.outbox.store.WaybillStore;

/**
 * The relay's meters. Counts arrive through the {@link RelayListener} callbacks; the gauges read
 * the backlog the relay refreshes every poll interval, so scraping never queries the database.
 *
 * @since 0.1
 */
public final class RelayMetrics implements MeterBinder, RelayListener {

	/** Messages confirmed by the broker. */
	public static final String PUBLISHED = "waybill.outbox.published";

	/** Failed delivery attempts, tagged {@code cause=message} (counted) or {@code cause=broker} (given back). */
	public static final String FAILED = "waybill.outbox.failed";

	/** Scopes dead-lettered. */
	public static final String DEAD = "waybill.outbox.dead";

	/** Messages not published because their time-to-live passed first (their scope is expired). */
	public static final String EXPIRED = "waybill.outbox.expired";

	/** Messages waiting for delivery. */
	public static final String PENDING = "waybill.outbox.pending";

	/** Age of the oldest pending scope. */
	public static final String LAG = "waybill.outbox.lag";

	/** Time from a scope's commit (a scheduled message's due time) to the broker's confirm of its last message. */
	public static final String LATENCY = "waybill.outbox.publish.latency";

	/** Scopes given up (status dead) and not yet requeued or removed. */
	public static final String DEAD_SCOPES = "waybill.outbox.scopes.dead";

	/** Pending scopes whose not-before time has come. */
	public static final String DUE_SCOPES = "waybill.outbox.scopes.due";

	/**
	 * How long the oldest due scope has been due (its not-before time or retry backoff passed), as
	 * of the relay's last read of the backlog.
	 */
	public static final String OLDEST_DUE_AGE = "waybill.outbox.scopes.oldest.due.age";

	/**
	 * The tag of the counters and the latency timer that names the store a scope was relayed from
	 * ({@code default}, or a store of {@code waybill.stores}).
	 */
	public static final String STORE_TAG = "store";

	/** Circuit breaker state: 0 closed, 1 half-open, 2 open. */
	public static final String CIRCUIT = "waybill.outbox.circuit.state";

	private final OutboxBacklog backlog;

	private volatile CircuitState circuit = CircuitState.CLOSED;

	private volatile @Nullable MeterRegistry registry;

	private final Map<String, Meters> byStore = new ConcurrentHashMap<>();

	/**
	 * Creates the meters' source.
	 * @param backlog the backlog figures the relay keeps current
	 */
	public RelayMetrics(OutboxBacklog backlog) {
		this.backlog = Objects.requireNonNull(backlog, "backlog must not be null");
	}

	/**
	 * Registers the backlog gauges of one store, tagged with its name (every store's, the default
	 * one's too, so that each name has one set of tag keys, as registries such as Prometheus's want).
	 * @param registry the registry
	 * @param store the store's name
	 * @param stats its latest backlog figures
	 * @param oldestDueFor how long its oldest due scope has been due
	 * @return the gauges
	 */
	static List<Meter> backlogGauges(MeterRegistry registry, String store, Supplier<OutboxStats> stats,
			Supplier<Duration> oldestDueFor) {
		return List.of(
				Gauge.builder(PENDING, stats, (s) -> s.get().pendingMessages())
					.tag(STORE_TAG, store)
					.description("Messages waiting for delivery")
					.baseUnit("messages")
					.register(registry),
				TimeGauge.builder(LAG, stats, TimeUnit.MILLISECONDS, (s) -> s.get().lag(Instant.now()).toMillis())
					.tag(STORE_TAG, store)
					.description("Age of the oldest pending outbox scope")
					.register(registry),
				Gauge.builder(DEAD_SCOPES, stats, (s) -> s.get().deadScopes())
					.tag(STORE_TAG, store)
					.description("Outbox scopes given up and waiting for an operator")
					.baseUnit("scopes")
					.register(registry),
				Gauge.builder(DUE_SCOPES, stats, (s) -> s.get().dueScopes())
					.tag(STORE_TAG, store)
					.description("Pending outbox scopes due for delivery")
					.baseUnit("scopes")
					.register(registry),
				TimeGauge.builder(OLDEST_DUE_AGE, oldestDueFor, TimeUnit.MILLISECONDS, (d) -> d.get().toMillis())
					.tag(STORE_TAG, store)
					.description("How long the oldest due outbox scope has been due")
					.register(registry));
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		backlogGauges(registry, WaybillStore.DEFAULT_NAME, this.backlog::current, this.backlog::oldestDueFor);
		Gauge.builder(CIRCUIT, this, (m) -> m.circuit.ordinal()) // CLOSED, HALF_OPEN, OPEN
			.description("Relay circuit breaker: 0 closed, 1 half-open, 2 open")
			.register(registry);
		this.registry = registry;
		this.byStore.clear();
		meters(WaybillStore.DEFAULT_NAME); // there from the start, before any outcome
	}

	/** The counters and the timer of a store's scopes, tagged with its name; registered on first use. */
	private @Nullable Meters meters(ClaimedScope scope) {
		return (this.registry != null) ? meters(LeaseOwners.storeOf(scope.leaseOwner())) : null;
	}

	private Meters meters(String store) {
		return this.byStore.computeIfAbsent(store, (name) -> {
			MeterRegistry registry = this.registry;
			return new Meters(
					Counter.builder(PUBLISHED).tag(STORE_TAG, name).description("Messages confirmed by the broker")
						.baseUnit("messages").register(registry),
					Counter.builder(FAILED).tag("cause", "message").tag(STORE_TAG, name).description("Failed delivery attempts")
						.register(registry),
					Counter.builder(FAILED).tag("cause", "broker").tag(STORE_TAG, name).description("Failed delivery attempts")
						.register(registry),
					Counter.builder(DEAD).tag(STORE_TAG, name).description("Outbox scopes dead-lettered").register(registry),
					Counter.builder(EXPIRED).tag(STORE_TAG, name)
						.description("Messages not published because their time-to-live passed")
						.baseUnit("messages").register(registry),
					Timer.builder(LATENCY).tag(STORE_TAG, name)
						.description("Commit, or a scheduled message's due time, to broker confirm")
						.publishPercentileHistogram().register(registry));
		});
	}

	@Override
	public void published(ClaimedScope scope, Instant confirmedAt) {
		Meters meters = meters(scope);
		if (meters != null) {
			meters.published.increment(scope.messages().size());
			Duration latency = Duration.between(due(scope), confirmedAt);
			meters.latency.record(latency.isNegative() ? Duration.ZERO : latency);
		}
	}

	/** When a scope could go at the earliest: its commit, or a scheduled message's not-before time. */
	private static Instant due(ClaimedScope scope) {
		Instant due = scope.createdAt();
		for (OutboxMessage message : scope.messages()) {
			Instant notBefore = message.notBefore();
			if (notBefore != null && notBefore.isAfter(due)) {
				due = notBefore;
			}
		}
		return due;
	}

	@Override
	public void retrying(ClaimedScope scope, String error, Duration delay) {
		Meters meters = meters(scope);
		if (meters != null) {
			meters.failedMessage.increment();
		}
	}

	@Override
	public void deadLettered(ClaimedScope scope, String error) {
		Meters meters = meters(scope);
		if (meters != null) {
			meters.failedMessage.increment();
			meters.dead.increment();
		}
	}

	@Override
	public void expired(ClaimedScope scope) {
		Meters meters = meters(scope);
		if (meters != null) {
			meters.expired.increment(scope.messages().size());
		}
	}

	@Override
	public void released(ClaimedScope scope, String error) {
		Meters meters = meters(scope);
		if (meters != null) {
			meters.failedBroker.increment();
		}
	}

	@Override
	public void circuitChanged(CircuitState state) {
		this.circuit = state;
	}

	private record Meters(Counter published, Counter failedMessage, Counter failedBroker, Counter dead, Counter expired, Timer latency) {
	}

}
