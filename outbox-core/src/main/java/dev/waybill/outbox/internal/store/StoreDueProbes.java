package dev.waybill.outbox.internal.store;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;

import dev.waybill.kernel.OutboxTables;
import dev.waybill.outbox.internal.jdbc.DueProbe;
import dev.waybill.outbox.internal.relay.StoreProbe;
import dev.waybill.outbox.store.WaybillStore;

/**
 * The relay's probe of the registered stores: one {@link DueProbe} statement per database (the
 * stores of one {@code DataSource}, a schema each, together), made anew when the stores change.
 * A database whose statement fails reports all its stores, whose claims then say why. What it
 * finds also says how long each store's oldest due scope has waited, for the meters.
 *
 * @since 0.1
 */
public final class StoreDueProbes implements StoreProbe {

	private final DefaultWaybillStores stores;

	/** When the oldest due scope of each store with one fell due, as of its database's last probe. */
	private final Map<String, Instant> dueSince = new ConcurrentHashMap<>();

	/** The probes of the last snapshot of the stores, by DataSource; replaced when the stores change. */
	private volatile Probes probes = new Probes(List.of());

	/**
	 * Creates the probe.
	 * @param stores the stores
	 */
	public StoreDueProbes(DefaultWaybillStores stores) {
		this.stores = Objects.requireNonNull(stores, "stores must not be null");
	}

	/**
	 * Returns how long the oldest due scope of a store has been due, as of the last probe of its
	 * database.
	 * @param store the store's name
	 * @return how long, zero when none was due (or the store was never probed)
	 */
	public Duration oldestDueFor(String store) {
		Instant since = this.dueSince.get(store);
		if (since == null) {
			return Duration.ZERO;
		}
		Duration due = Duration.between(since, Instant.now());
		return due.isNegative() ? Duration.ZERO : due;
	}

	@Override
	public Set<String> due(Set<String> names) {
		List<RegisteredStore> registered = this.stores.registered();
		Probes probes = this.probes;
		if (probes.stores != registered) {
			probes = new Probes(registered);
			this.probes = probes;
		}
		Set<String> due = new HashSet<>();
		for (Group group : probes.groups.values()) {
			if (group.stores.stream().noneMatch((store) -> names.contains(store.name()))) {
				continue;
			}
			try {
				Map<OutboxTables, Instant> found = group.probe.due();
				for (RegisteredStore store : group.stores) {
					Instant since = found.get(store.tables());
					if (since != null) {
						due.add(store.name());
						this.dueSince.put(store.name(), since);
					}
					else {
						this.dueSince.remove(store.name());
					}
				}
			}
			catch (RuntimeException ex) {
				group.stores.forEach((store) -> due.add(store.name()));
			}
		}
		due.retainAll(names);
		return due;
	}

	/** The probes of one list of registered stores. */
	private static final class Probes {

		final List<RegisteredStore> stores;

		final Map<DataSource, Group> groups = new IdentityHashMap<>();

		Probes(List<RegisteredStore> stores) {
			this.stores = stores;
			Map<DataSource, List<RegisteredStore>> byDataSource = new IdentityHashMap<>();
			for (RegisteredStore store : stores) {
				if (!store.name().equals(WaybillStore.DEFAULT_NAME)) {
					byDataSource.computeIfAbsent(store.store().dataSource(), (ds) -> new ArrayList<>()).add(store);
				}
			}
			byDataSource.forEach((dataSource, ofDataSource) -> this.groups.put(dataSource, new Group(ofDataSource,
					new DueProbe(dataSource, ofDataSource.stream().map(RegisteredStore::tables).toList()))));
		}

	}

	private record Group(List<RegisteredStore> stores, DueProbe probe) {
	}

}
