package dev.waybill.outbox.internal.store;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;

import dev.waybill.kernel.OutboxTables;
import dev.waybill.outbox.OutboxStats;
import dev.waybill.outbox.internal.jdbc.DueProbe;
import dev.waybill.outbox.internal.relay.StoreProbe;
import dev.waybill.outbox.store.WaybillStore;

/**
 * The relay's probe of the registered stores: one {@link DueProbe} statement per database (the
 * stores of one {@code DataSource}, a schema each, together), made anew when the stores change.
 * A database whose statement fails reports all its stores, whose claims then say why. What it
 * finds also says how long each store's oldest due scope has waited, for the meters. The stores'
 * backlog figures (the default store's are the relay's own reading) are read in one more
 * statement per database ({@link DueProbe#backlogs()}): at each probe that found one of its stores due
 * and at the next one (which sees the backlog drained), and at every
 * {@value #BACKLOG_EVERY_PROBES}th otherwise, so idle stores cost little.
 *
 * @since 0.1
 */
public final class StoreDueProbes implements StoreProbe {

	/** How many probes of a database with nothing due pass between two readings of its stores' backlogs. */
	public static final int BACKLOG_EVERY_PROBES = 10;

	private final DefaultWaybillStores stores;

	/** Each store's backlog as last read, with when. */
	private final Map<String, StoreBacklog> backlogs = new ConcurrentHashMap<>();

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

	/**
	 * Returns a store's backlog figures as last read.
	 * @param store the store's name
	 * @return the figures and when they were read, or empty before the first reading
	 */
	public Optional<StoreBacklog> backlog(String store) {
		return Optional.ofNullable(this.backlogs.get(store));
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
				boolean anyDue = false;
				for (RegisteredStore store : group.stores) {
					Instant since = found.get(store.tables());
					if (since != null) {
						anyDue = true;
						due.add(store.name());
						this.dueSince.put(store.name(), since);
					}
					else {
						this.dueSince.remove(store.name());
					}
				}
				boolean wasDue = group.wasDue;
				group.wasDue = anyDue;
				if (anyDue || wasDue || ++group.probesSinceBacklog >= BACKLOG_EVERY_PROBES) {
					readBacklogs(group);
				}
			}
			catch (RuntimeException ex) {
				group.stores.forEach((store) -> due.add(store.name()));
			}
		}
		due.retainAll(names);
		this.backlogs.keySet().retainAll(registered.stream().map(RegisteredStore::name).toList());
		return due;
	}

	/** Reads a database's stores' backlogs; one that cannot be read keeps its last figures, and their time. */
	private void readBacklogs(Group group) {
		group.probesSinceBacklog = 0;
		Map<OutboxTables, OutboxStats> read = group.probe.backlogs();
		Instant now = Instant.now();
		for (RegisteredStore store : group.stores) {
			OutboxStats stats = read.get(store.tables());
			if (stats != null) {
				this.backlogs.put(store.name(), new StoreBacklog(stats, now));
			}
		}
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
			byDataSource.forEach((dataSource, ofDataSource) -> {
				this.groups.put(dataSource, new Group(ofDataSource,
						new DueProbe(dataSource, ofDataSource.stream().map(RegisteredStore::tables).toList())));
			});
		}

	}

	/** The stores of one database and their probes; the relay's primary worker's only. */
	private static final class Group {

		final List<RegisteredStore> stores;

		final DueProbe probe;

		/** Starts due, so that the first probe reads the backlogs. */
		int probesSinceBacklog = BACKLOG_EVERY_PROBES;

		/** Whether the last probe found one of its stores due. */
		boolean wasDue;

		Group(List<RegisteredStore> stores, DueProbe probe) {
			this.stores = stores;
			this.probe = probe;
		}

	}

	/**
	 * A store's backlog figures.
	 *
	 * @param stats the figures
	 * @param readAt when they were read
	 */
	public record StoreBacklog(OutboxStats stats, Instant readAt) {
	}

}
