package dev.waybill.outbox.internal.store;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import javax.sql.DataSource;

import dev.waybill.kernel.OutboxTables;
import dev.waybill.outbox.internal.jdbc.DueProbe;
import dev.waybill.outbox.internal.relay.StoreProbe;
import dev.waybill.outbox.store.WaybillStore;

/**
 * The relay's probe of the registered stores: one {@link DueProbe} statement per database (the
 * stores of one {@code DataSource}, a schema each, together), made anew when the stores change.
 * A database whose statement fails reports all its stores, whose claims then say why.
 *
 * @since 0.1
 */
public final class StoreDueProbes implements StoreProbe {

	private final DefaultWaybillStores stores;

	/** The probes of the last snapshot of the stores, by DataSource; replaced when the stores change. */
	private volatile Probes probes = new Probes(List.of());

	/**
	 * Creates the probe.
	 * @param stores the stores
	 */
	public StoreDueProbes(DefaultWaybillStores stores) {
		this.stores = Objects.requireNonNull(stores, "stores must not be null");
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
				Set<OutboxTables> found = group.probe.due();
				group.stores.stream().filter((store) -> found.contains(store.tables())).forEach((store) -> due.add(store.name()));
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
