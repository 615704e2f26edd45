package dev.waybill.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;

import dev.waybill.kernel.OutboxTables;
import dev.waybill.outbox.autoconfigure.WaybillAutoConfiguration;
import dev.waybill.outbox.store.StoreResolver;
import dev.waybill.outbox.store.WaybillStore;
import dev.waybill.outbox.store.WaybillStores;
import dev.waybill.outbox.test.TestPostgres;
import dev.waybill.outbox.test.TestSchema;

/**
 * (13) Stores: what serving several stores costs one instance, against one store, measured in the
 * same run. Every store besides the default one is a schema of the application's
 * {@code DataSource} ({@code waybill.stores.sN.schema}), its tables created by Waybill's migration
 * when the application starts.
 * <p>
 * Drain: a backlog of committed one-message scopes (written with SQL while the relay is paused, as
 * in (2)) drained by an application with only the default store, and the same backlog split
 * evenly over 10 stores of another application, whose default store is empty and whose
 * {@link StoreResolver} names the store each store's last message is published to; interleaved in
 * every run, after an untimed drain of each.
 * <p>
 * Idle: an application whose relay runs with nothing to relay, with the default store only and
 * with {@link Sizes#idleStores()} stores besides it, each started afresh in every run on a pool of
 * its own whose connections carry an application name of their own: the connections it holds, the
 * Waybill threads it started, the database's commits per second, and the CPU of the JVM and of the
 * application's PostgreSQL backends, over a window after a warm-up. These run first, while no
 * other application of the group is up, so that the JVM's threads and CPU are the idle
 * application's.
 * <p>
 * Write path: business transactions as in (3) (one row and one message through the outbox, on
 * several threads, no relay), publishing to a tenant store of the application's
 * {@code DataSource} that a {@link StoreResolver} bean names from a {@code ThreadLocal} set around
 * each transaction, against the same load on an application with the default store only and no
 * resolver; alternating.
 */
final class StoreRelayThroughput implements Benchmark {

	static final String NAME = "stores";

	/** The stores the drain's backlog is split over. */
	static final int DRAIN_STORES = 10;

	static final String DRAIN_ONE = "backlog drained, 1 store";

	static final String DRAIN_MANY = "backlog drained, " + DRAIN_STORES + " stores";

	/** The same drain, with one more store whose database is unavailable throughout. */
	static final String DRAIN_ONE_DOWN = "backlog drained, " + DRAIN_STORES + " stores, one more unavailable";

	/** The name of the store whose database is unavailable. */
	private static final String DOWN_STORE = "gone";

	static final String WRITE_DEFAULT = "1 row + publish of 1 msg, default store only";

	static final String WRITE_RESOLVED = "1 row + publish of 1 msg to a tenant store a StoreResolver names";

	static final String CONNECTIONS = "PostgreSQL connections held";

	static final String THREADS = "Waybill threads";

	static final String COMMITS = "database commits";

	static final String JVM_CPU = "JVM CPU";

	static final String BACKEND_CPU = "CPU of its PostgreSQL backends";

	static final String PER_STORE = "idle: commits per added store and poll interval";

	/**
	 * Long enough that every store's first claim (each is due at its registration), the listener's
	 * start-up probe and the pool's first connections are over, and the polls are in their steady
	 * state.
	 */
	private static final Duration IDLE_WARM_UP = Duration.ofSeconds(3);

	/** The most connections an idle application's pool opens: Spring Boot's default size. */
	private static final int IDLE_POOL_SIZE = 10;

	/** The tenant the writers' requests are for; what a request filter would keep. */
	private static final ThreadLocal<String> TENANT = new ThreadLocal<>();

	/**
	 * Names a figure of the idle windows.
	 * @param stores the stores relayed: 1 for the default store alone, else those besides it
	 * @param what one of {@link #CONNECTIONS}, {@link #THREADS}, {@link #COMMITS}, {@link #JVM_CPU},
	 * {@link #BACKEND_CPU}
	 * @return the figure's name
	 */
	static String idleFigure(int stores, String what) {
		return "idle, " + stores + ((stores == 1) ? " store: " : " stores: ") + what;
	}

	@Override
	public List<Measurement> run(BenchContext context, Progress progress) throws Exception {
		// First, while no other application of the group is up: the JVM's threads and CPU are then
		// the idle application's.
		List<Measurement> idle = idle(context, progress);
		List<Measurement> results = new ArrayList<>(drain(context, progress));
		results.addAll(idle);
		results.addAll(writes(context, progress));
		return results;
	}

	private List<Measurement> drain(BenchContext context, Progress progress) throws Exception {
		int messages = context.sizes().relayMessages();
		if (messages % DRAIN_STORES != 0) {
			throw new IllegalArgumentException(messages + " messages do not split evenly over " + DRAIN_STORES + " stores");
		}
		BrokerQueue queue = context.queue(context.uniqueName(NAME));
		OutboxWiring one = context.wiring(NAME + "_one");
		TestSchema manySchema = context.schema(NAME + "_many");
		TenantSchemas tenants = context.register(new TenantSchemas(manySchema.dataSource(), "drain", DRAIN_STORES));
		OutboxWiring many = context.wiring(manySchema, (app) -> tenants.configure(app.rabbit(context.rabbit()))
			.property(WaybillAutoConfiguration.LIQUIBASE_ENABLED_PROPERTY, true)
			.bean(StoreResolver.class, () -> TENANT::get));
		// Registered before the application that uses it, so that it is dropped after the application closed.
		UnavailableTenantDatabase gone = context.register(new UnavailableTenantDatabase(context.postgres()));
		TestSchema downSchema = context.schema(NAME + "_down");
		TenantSchemas downTenants = context.register(new TenantSchemas(downSchema.dataSource(), "down", DRAIN_STORES));
		OutboxWiring down = context.wiring(downSchema, (app) -> downTenants.configure(app.rabbit(context.rabbit()))
			.property(WaybillAutoConfiguration.LIQUIBASE_ENABLED_PROPERTY, true)
			.bean(StoreResolver.class, () -> TENANT::get));
		down.app().bean(WaybillStores.class).register(new WaybillStore(DOWN_STORE, gone.pool(), "waybill"));
		// Due when the relay starts, so that its first claim meets the unavailable database.
		new Rows(gone.pool(), OutboxTables.inSchema("waybill")).pending(DRAIN_STORES, 1, queue.exchange());
		gone.makeUnavailable();
		Drains drains = new Drains(one, queue);
		int warmUp = Math.max(DRAIN_STORES, messages / 5 / DRAIN_STORES * DRAIN_STORES);
		drains.one(warmUp);
		drains.many(many, tenants, warmUp);
		drains.many(down, downTenants, warmUp);
		List<Double> oneRates = new ArrayList<>();
		List<Double> manyRates = new ArrayList<>();
		List<Double> downRates = new ArrayList<>();
		for (int run = 1; run <= context.runs(); run++) {
			// In turn: each drain goes first in one run, so that none is always the warmest.
			for (int turn = 0; turn < 3; turn++) {
				switch ((run - 1 + turn) % 3) {
					case 0 -> oneRates.add(drains.one(messages));
					case 1 -> manyRates.add(drains.many(many, tenants, messages));
					default -> downRates.add(drains.many(down, downTenants, messages));
				}
			}
			progress.report("run " + run + ": drained 1 store " + ResultTable.number(oneRates.get(run - 1)) + " msg/s, "
					+ DRAIN_STORES + " stores " + ResultTable.number(manyRates.get(run - 1)) + " msg/s, "
					+ DRAIN_STORES + " stores and one unavailable " + ResultTable.number(downRates.get(run - 1)) + " msg/s");
		}
		String note = messages + " msgs backlog in scopes of 1, default relay (" + one.relaySettings().getWorkers()
				+ " workers, batch " + one.relaySettings().getBatchSize() + "), after an untimed drain of " + warmUp
				+ " of each";
		return List.of(new Measurement(NAME, DRAIN_ONE, "msg/s", oneRates, note + "; the default store only"),
				new Measurement(NAME, DRAIN_MANY, "msg/s", manyRates,
						note + "; " + messages / DRAIN_STORES + " in each of " + DRAIN_STORES
								+ " stores (schemas of the application's DataSource), its default store empty; the last "
								+ "message of each store published through the OutboxPublisher (a StoreResolver naming the "
								+ "store), whose commit makes the store due at the relay's start, so neither drain waits "
								+ "for a poll"),
				new Measurement(NAME, DRAIN_ONE_DOWN, "msg/s", downRates,
						note + "; as the " + DRAIN_STORES + " stores, in a third application with one more store, "
								+ "registered at run time on a database of its own that is made unavailable (no connection "
								+ "allowed, its sessions ended) before the runs, with scopes due in it, its pool's "
								+ "connection timeout " + UnavailableTenantDatabase.CONNECTION_TIMEOUT_MILLIS + " ms"));
	}

	private List<Measurement> idle(BenchContext context, Progress progress) throws Exception {
		int stores = context.sizes().idleStores();
		TestSchema schema = context.schema(NAME + "_idle");
		TenantSchemas tenants = context.register(new TenantSchemas(schema.dataSource(), "idle", stores));
		// Once: the stores' migration creates their tables as the application starts, and the
		// applications of the windows find them there.
		Timer created = Timer.start();
		new OutboxWiring(schema,
				tenants.configure(WaybillApp.on(schema)).property(WaybillAutoConfiguration.LIQUIBASE_ENABLED_PROPERTY, true))
			.close();
		progress.report("created the tables of " + stores + " stores at start-up in "
				+ String.format(Locale.ROOT, "%.1f", created.seconds()) + " s");
		double pollSeconds = OutboxWiring.defaultRelaySettings().getPollInterval().toNanos() / 1e9;
		List<IdleWindow> single = new ArrayList<>();
		List<IdleWindow> multiple = new ArrayList<>();
		List<Double> perStore = new ArrayList<>();
		for (int run = 1; run <= context.runs(); run++) {
			single.add(idleWindow(context, schema, null));
			multiple.add(idleWindow(context, schema, tenants));
			IdleWindow a = single.get(run - 1);
			IdleWindow b = multiple.get(run - 1);
			perStore.add((b.commitsPerSecond() - a.commitsPerSecond()) * pollSeconds / stores);
			progress.report("run " + run + ": idle, 1 store " + a + "; " + stores + " stores " + b);
		}
		String note = context.sizes().idleSeconds() + " s after " + IDLE_WARM_UP.toSeconds()
				+ " s warm-up of an application started for the window, its relay running with nothing to relay, default "
				+ "relay settings (poll interval " + ResultTable.number(pollSeconds) + " s)";
		String storesNote = stores + " stores besides the default one, schemas of the application's DataSource"
				+ ((stores < Sizes.full().idleStores()) ? " (--quick; " + Sizes.full().idleStores() + " in a full run)" : "");
		List<Measurement> results = new ArrayList<>();
		for (boolean many : List.of(false, true)) {
			List<IdleWindow> windows = many ? multiple : single;
			int count = many ? stores : 1;
			String configuration = note + (many ? "; " + storesNote : "; the default store only");
			results.add(new Measurement(NAME, idleFigure(count, CONNECTIONS), "connections",
					windows.stream().map((w) -> (double) w.connections()).toList(),
					configuration + "; pg_stat_activity rows with the pool's ApplicationName, the more of the window's start "
							+ "and end; the pool (at most " + IDLE_POOL_SIZE + ", opened on demand) holds the LISTEN connection too"));
			results.add(new Measurement(NAME, idleFigure(count, THREADS), "threads",
					windows.stream().map((w) -> (double) w.threads()).toList(),
					configuration + "; live threads named waybill-* the application started"));
			results.add(new Measurement(NAME, idleFigure(count, COMMITS), "tx/s",
					windows.stream().map(IdleWindow::commitsPerSecond).toList(),
					configuration + "; pg_stat_database.xact_commit of the benchmark's database: every session of it "
							+ "counts, other clients' and the meter's own read too"));
			results.add(new Measurement(NAME, idleFigure(count, JVM_CPU), "% of a core",
					windows.stream().map(IdleWindow::jvmCpu).toList(), configuration + "; the benchmark's JVM"));
			results.add(new Measurement(NAME, idleFigure(count, BACKEND_CPU), "% of a core",
					windows.stream().map(IdleWindow::backendCpu).toList(),
					configuration + "; user and system time of the backends of the application's connections"));
		}
		results.add(new Measurement(NAME, PER_STORE, "tx", perStore,
				"(commits/s with " + stores + " stores - with 1) x poll interval / " + stores
						+ ", each of the same run: what an idle store costs the database per poll interval"));
		return results;
	}

	/**
	 * Starts an application on its own pool, lets its relay run idle through the warm-up, then
	 * measures a window; the application is closed after it.
	 * @param stores the stores besides the default one, or null for none
	 */
	private IdleWindow idleWindow(BenchContext context, TestSchema schema, @Nullable TenantSchemas stores)
			throws Exception {
		String application = context.uniqueName(NAME + "-idle");
		Set<Long> before = threadIds();
		try (HikariDataSource pool = idlePool(context.postgres(), application);
				OutboxWiring wiring = new OutboxWiring(schema,
						configure(WaybillApp.on(schema).dataSource(pool).rabbit(context.rabbit()), stores));
				OutboxWiring.RunningRelay relay = wiring.startRelay((message, at) -> {
				})) {
			Thread.sleep(IDLE_WARM_UP.toMillis());
			return IdleWindow.measure(new JdbcTemplate(schema.dataSource()), application, before,
					context.sizes().idleSeconds());
		}
	}

	private static WaybillApp.Builder configure(WaybillApp.Builder app, @Nullable TenantSchemas stores) {
		return (stores != null) ? stores.configure(app) : app;
	}

	/**
	 * A pool for one idle application whose connections name it in {@code pg_stat_activity}; it
	 * opens connections as they are asked for, so what it holds is what the application kept.
	 */
	private static HikariDataSource idlePool(TestPostgres postgres, String application) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(postgres.url());
		config.setUsername(postgres.user());
		config.setPassword(postgres.password());
		config.setPoolName(application);
		config.setMaximumPoolSize(IDLE_POOL_SIZE);
		config.setMinimumIdle(1);
		config.addDataSourceProperty("ApplicationName", application);
		return new HikariDataSource(config);
	}

	private static Set<Long> threadIds() {
		Set<Long> ids = new HashSet<>();
		for (Thread thread : Thread.getAllStackTraces().keySet()) {
			ids.add(thread.getId());
		}
		return ids;
	}

	private List<Measurement> writes(BenchContext context, Progress progress) throws Exception {
		Sizes sizes = context.sizes();
		TestSchema schema = context.schema(NAME + "_write");
		TenantSchemas tenant = context.register(new TenantSchemas(schema.dataSource(), "write", 1));
		String store = tenant.store(0);
		OutboxWiring plain = context.wiring(schema, UnaryOperator.identity());
		OutboxWiring resolved = context.wiring(schema,
				(app) -> tenant.configure(app)
					.property(WaybillAutoConfiguration.LIQUIBASE_ENABLED_PROPERTY, true)
					.bean(StoreResolver.class, () -> TENANT::get));
		WriteLoad plainLoad = new WriteLoad(plain, context.uniqueName(NAME));
		WriteLoad resolvedLoad = new WriteLoad(resolved, context.uniqueName(NAME), (transaction) -> {
			TENANT.set(store);
			try {
				transaction.run();
			}
			finally {
				TENANT.remove();
			}
		});
		List<Rows> outboxes = List.of(new Rows(schema), tenant.rows(0));
		int threads = sizes.writeThreads();
		plainLoad.run(threads, true, sizes.warmUpSeconds());
		resolvedLoad.run(threads, true, sizes.warmUpSeconds());
		List<Double> defaultRates = new ArrayList<>();
		List<Double> resolvedRates = new ArrayList<>();
		for (int run = 1; run <= context.runs(); run++) {
			truncate(plainLoad, outboxes);
			defaultRates.add(plainLoad.run(threads, true, sizes.writeSeconds()));
			truncate(resolvedLoad, outboxes);
			resolvedRates.add(resolvedLoad.run(threads, true, sizes.writeSeconds()));
			progress.report("run " + run + ": default store only " + ResultTable.number(defaultRates.get(run - 1))
					+ " tx/s, tenant store by a StoreResolver " + ResultTable.number(resolvedRates.get(run - 1)) + " tx/s");
		}
		// The last load was the resolved one, on emptied tables: every message of it is in the tenant store.
		if (tenant.rows(0).scopes("pending") == 0 || outboxes.get(0).scopes("pending") != 0) {
			throw new IllegalStateException("The resolved load did not write to store '" + store + "' alone");
		}
		String note = threads + " threads, " + sizes.writeSeconds() + " s per run, 1 KiB message, relay off";
		return List.of(new Measurement(NAME, WRITE_DEFAULT, "tx/s", defaultRates, note + ", no StoreResolver"),
				new Measurement(NAME, WRITE_RESOLVED, "tx/s", resolvedRates,
						note + ", the tenant store a schema of the same DataSource, named by a StoreResolver bean from a "
								+ "ThreadLocal set around each transaction"));
	}

	private static void truncate(WriteLoad load, List<Rows> outboxes) {
		load.truncate();
		outboxes.forEach(Rows::truncate);
	}

	/**
	 * The drains on a queue of their own: of an application with the default store only, and of
	 * applications with stores besides their empty default store and a {@link StoreResolver} that
	 * reads {@link #TENANT}.
	 */
	private static final class Drains {

		private final OutboxWiring one;

		private final BrokerQueue queue;

		Drains(OutboxWiring one, BrokerQueue queue) {
			this.one = one;
			this.queue = queue;
		}

		/** Drains {@code messages} from the default store of the first application. */
		double one(int messages) throws InterruptedException {
			Rows rows = new Rows(this.one.schema());
			rows.truncate();
			rows.pending(messages, 1, this.queue.exchange());
			rows.vacuumAnalyze();
			this.queue.purge();
			double rate = RelayThroughput.drain(this.one, messages);
			this.queue.purge();
			return rate;
		}

		/** Drains {@code messages}, split evenly over the stores of an application with several. */
		double many(OutboxWiring many, TenantSchemas stores, int messages) throws InterruptedException {
			new Rows(many.schema()).truncate();
			int perStore = messages / stores.count();
			for (int i = 0; i < stores.count(); i++) {
				Rows rows = stores.rows(i);
				rows.truncate();
				rows.pending(perStore - 1, 1, this.queue.exchange());
				rows.vacuumAnalyze();
			}
			// A store's lane is due at once after a commit of this process to it, and otherwise at its
			// next poll; the default store's backlog is claimed at the relay's start. So each store's
			// last message is published, as the backlog's writers would have, to start both alike.
			for (int i = 0; i < stores.count(); i++) {
				TENANT.set(stores.store(i));
				try {
					many.transactions()
						.executeWithoutResult((status) -> many.publisher().send(this.queue.exchange(),
								BenchOrder.of(perStore)));
				}
				finally {
					TENANT.remove();
				}
			}
			this.queue.purge();
			double rate = RelayThroughput.drain(many, messages);
			this.queue.purge();
			return rate;
		}

	}

	/**
	 * What one idle window measured.
	 *
	 * @param connections the application's connections in {@code pg_stat_activity}
	 * @param threads the live {@code waybill-*} threads the application started
	 * @param commitsPerSecond the database's commits per second
	 * @param jvmCpu the JVM's CPU, percent of one core
	 * @param backendCpu the CPU of the application's PostgreSQL backends, percent of one core
	 */
	record IdleWindow(int connections, int threads, double commitsPerSecond, double jvmCpu, double backendCpu) {

		private static final String BACKENDS = "SELECT pid FROM pg_stat_activity WHERE application_name = ? "
				+ "AND datname = current_database()";

		/**
		 * Measures a window: reads the counters, sleeps, reads them again.
		 * @param meter a connection pool that is not the application's, to read with
		 * @param application the application name of the application's connections
		 * @param threadsBefore the ids of the threads alive before the application started
		 * @param seconds the window
		 * @return what the window measured
		 */
		static IdleWindow measure(JdbcTemplate meter, String application, Set<Long> threadsBefore, int seconds)
				throws InterruptedException {
			List<Integer> backendsBefore = meter.queryForList(BACKENDS, Integer.class, application);
			Map<Integer, Long> backendCpuBefore = new HashMap<>();
			backendsBefore.forEach((pid) -> backendCpuBefore.put(pid, CpuMeter.processNanos(pid)));
			long jvmBefore = CpuMeter.jvmNanos();
			long commitsBefore = commits(meter);
			Timer timer = Timer.start();
			Thread.sleep(seconds * 1000L);
			long commitsAfter = commits(meter);
			double elapsed = timer.seconds();
			long jvmUsed = CpuMeter.jvmNanos() - jvmBefore;
			List<Integer> backendsAfter = meter.queryForList(BACKENDS, Integer.class, application);
			long backendUsed = 0;
			for (int pid : backendsAfter) {
				// a backend that connected during the window used all of its CPU in it
				backendUsed += CpuMeter.processNanos(pid) - backendCpuBefore.getOrDefault(pid, 0L);
			}
			return new IdleWindow(Math.max(backendsBefore.size(), backendsAfter.size()), waybillThreads(threadsBefore),
					(commitsAfter - commitsBefore) / elapsed, 100 * jvmUsed / (elapsed * 1e9),
					100 * backendUsed / (elapsed * 1e9));
		}

		private static long commits(JdbcTemplate meter) {
			return meter.queryForObject("SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()",
					Long.class);
		}

		private static int waybillThreads(Set<Long> before) {
			int count = 0;
			for (Thread thread : Thread.getAllStackTraces().keySet()) {
				if (thread.isAlive() && thread.getName().startsWith("waybill-") && !before.contains(thread.getId())) {
					count++;
				}
			}
			return count;
		}

		@Override
		public String toString() {
			return this.connections + " connections, " + this.threads + " threads, "
					+ ResultTable.number(this.commitsPerSecond) + " commits/s, JVM CPU " + ResultTable.number(this.jvmCpu)
					+ "%, backends' CPU " + ResultTable.number(this.backendCpu) + "%";
		}

	}

	/**
	 * The schemas of stores besides the default one, on one {@code DataSource}, named for this run
	 * ({@code bench_stores_<role>_<8 hex digits>_<n>}) and configured as stores {@code s1},
	 * {@code s2}... through {@code waybill.stores.sN.schema}. The stores' migration creates their
	 * tables; closing drops the schemas with everything in them, each in a statement of its own so
	 * that no transaction holds the locks of hundreds of tables.
	 */
	static final class TenantSchemas implements AutoCloseable {

		private final DataSource dataSource;

		private final List<String> names = new ArrayList<>();

		/**
		 * Names the schemas; nothing is created yet.
		 * @param dataSource the database the stores live in
		 * @param role what they are for, part of their names
		 * @param count how many
		 */
		TenantSchemas(DataSource dataSource, String role, int count) {
			this.dataSource = dataSource;
			String prefix = "bench_" + NAME + "_" + role + "_" + UUID.randomUUID().toString().substring(0, 8) + "_";
			for (int i = 1; i <= count; i++) {
				this.names.add(prefix + i);
			}
		}

		int count() {
			return this.names.size();
		}

		/**
		 * Returns the name of the {@code index}th store.
		 * @param index from 0
		 * @return {@code s<index + 1>}
		 */
		String store(int index) {
			return "s" + (index + 1);
		}

		/**
		 * Returns bulk SQL on the {@code index}th store's tables.
		 * @param index from 0
		 * @return its rows
		 */
		Rows rows(int index) {
			return new Rows(this.dataSource, OutboxTables.inSchema(this.names.get(index)));
		}

		/**
		 * Declares every store of these schemas to an application, on its {@code DataSource}.
		 * @param app the application
		 * @return the application
		 */
		WaybillApp.Builder configure(WaybillApp.Builder app) {
			for (int i = 0; i < this.names.size(); i++) {
				app.property("waybill.stores." + store(i) + ".schema", this.names.get(i));
			}
			return app;
		}

		@Override
		public void close() {
			JdbcTemplate jdbc = new JdbcTemplate(this.dataSource);
			RuntimeException failure = null;
			for (String name : this.names) {
				try {
					jdbc.execute("DROP SCHEMA IF EXISTS " + name + " CASCADE");
				}
				catch (RuntimeException ex) {
					if (failure == null) {
						failure = ex;
					}
				}
			}
			if (failure != null) {
				throw failure;
			}
		}

		@Override
		public String toString() {
			return "store schemas " + this.names.get(0) + " to " + this.names.get(this.names.size() - 1);
		}

	}

}
