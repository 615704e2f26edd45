package dev.waybill.outbox.internal.metrics;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.jspecify.annotations.Nullable;

import dev.waybill.outbox.internal.store.DefaultWaybillStores;
import dev.waybill.outbox.internal.store.RegisteredStore;
import dev.waybill.outbox.internal.store.StoreDueProbes;

/**
 * {@value RelayMetrics#OLDEST_DUE_AGE} of each store other than the default one, tagged with its
 * name: how long its oldest due scope has waited, as the relay's poll of its database last found
 * (so it moves where the relay runs). A store registered later gets its gauge then; one
 * deregistered loses it.
 *
 * @since 0.1
 */
public final class StoreBacklogMetrics implements MeterBinder {

	private final DefaultWaybillStores stores;

	private final StoreDueProbes probes;

	private final Map<String, Meter> gauges = new ConcurrentHashMap<>();

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
				Meter gauge = StoreBacklogMetrics.this.gauges.remove(store.name());
				MeterRegistry registry = StoreBacklogMetrics.this.registry;
				if (gauge != null && registry != null) {
					registry.remove(gauge);
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
		this.gauges.computeIfAbsent(name, (n) -> TimeGauge
			.builder(RelayMetrics.OLDEST_DUE_AGE, this.probes, TimeUnit.MILLISECONDS, (p) -> p.oldestDueFor(n).toMillis())
			.tag(RelayMetrics.STORE_TAG, n)
			.description("How long the oldest due outbox scope has been due")
			.register(registry));
	}

}
