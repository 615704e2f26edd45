package dev.waybill.outbox.internal.metrics;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.jspecify.annotations.Nullable;

import dev.waybill.outbox.OutboxStats;
import dev.waybill.outbox.internal.store.DefaultWaybillStores;
import dev.waybill.outbox.internal.store.RegisteredStore;
import dev.waybill.outbox.internal.store.StoreDueProbes;

/**
 * The backlog gauges of each store other than the default one, tagged with its name:
 * {@value RelayMetrics#OLDEST_DUE_AGE} (how long its oldest due scope has waited, as the relay's
 * poll of its database last found), {@value RelayMetrics#PENDING}, {@value RelayMetrics#LAG},
 * {@value RelayMetrics#DUE_SCOPES} and {@value RelayMetrics#DEAD_SCOPES} (as the relay's last
 * reading of its backlog found, see {@link StoreDueProbes}); so they move where the relay runs.
 * A store registered later gets its gauges then; one deregistered loses them.
 *
 * @since 0.1
 */
public final class StoreBacklogMetrics implements MeterBinder {

	private final DefaultWaybillStores stores;

	private final StoreDueProbes probes;

	private final Map<String, List<Meter>> gauges = new ConcurrentHashMap<>();

	private volatile @Nullable MeterRegistry registry;

	/**
	 * Creates the gauges' source.
	 * @param stores the stores
	 * @param probes the relay's poll of the stores
	 */
	public StoreBacklogMetrics(DefaultWaybillStores stores, StoreDueProbes probes) {
		this.stores = Objects.requireNonNull(stores, "stores must not be null");
		this.probes = Objects.requireNonNull(probes, "probes must not be null");
		stores.addListener(new DefaultWaybillStores.Listener() {
			@Override
			public void registered(RegisteredStore store) {
				register(store);
			}

			@Override
			public void deregistered(RegisteredStore store) {
				List<Meter> gauges = StoreBacklogMetrics.this.gauges.remove(store.name());
				MeterRegistry registry = StoreBacklogMetrics.this.registry;
				if (gauges != null && registry != null) {
					gauges.forEach(registry::remove);
				}
			}
		});
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		this.registry = registry;
		for (RegisteredStore store : this.stores.registered()) {
			register(store);
		}
	}

	private void register(RegisteredStore store) {
		MeterRegistry registry = this.registry;
		if (registry == null || store == this.stores.defaultEntry()) {
			return;
		}
		String name = store.name();
		this.gauges.computeIfAbsent(name, (n) -> RelayMetrics.backlogGauges(registry, n, () -> stats(this.probes, n),
				() -> this.probes.oldestDueFor(n)));
	}

	private static OutboxStats stats(StoreDueProbes probes, String store) {
		return probes.backlog(store).map(StoreDueProbes.StoreBacklog::stats).orElse(OutboxStats.EMPTY);
	}

}
