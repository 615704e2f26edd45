package dev.waybill.samples.demo.tenants;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import dev.waybill.outbox.store.WaybillStores;

/**
 * The tenants scenario: invoices of two tenants issued from several threads, each tenant's
 * written and relayed from its own store and entered in its own ledger by the inbox of that
 * store, while a statement run scheduled in every store fires in each. It is right when every
 * invoice has exactly one ledger entry, in its own tenant's schema, no tenant's tables hold
 * another's invoice or message, and each store recorded its own statement runs and no other's.
 */
public final class TenantsDemo {

	static final List<String> TENANTS = List.of("acme", "globex");

	private final int invoices;

	private final int threads;

	private final Duration timeout;

	/**
	 * Creates the scenario.
	 * @param invoices the invoices per tenant
	 * @param threads the threads issuing them
	 * @param timeout how long to wait for every ledger entry
	 */
	public TenantsDemo(int invoices, int threads, Duration timeout) {
		this.invoices = invoices;
		this.threads = threads;
		this.timeout = timeout;
	}

	/**
	 * Starts the service with the given arguments, runs the scenario and stops the service.
	 * @param arguments {@code --name=value} arguments for the service (database, broker)
	 * @param out where the scenario speaks
	 * @return whether every invoice was entered exactly once, in its own tenant's ledger
	 * @throws Exception when the service cannot start or an invoice cannot be issued
	 */
	public boolean run(List<String> arguments, PrintStream out) throws Exception {
		long started = System.nanoTime();
		try (ConfigurableApplicationContext service = TenantsApplication.application().run(arguments.toArray(String[]::new))) {
			out.printf(Locale.ROOT, "Service:    invoicing with the stores %s (a schema each) started in %.1f s%n",
					service.getBean(WaybillStores.class).all().stream().map((store) -> store.name()).toList(),
					(System.nanoTime() - started) / 1e9);
			Map<String, List<UUID>> issued = issue(service.getBean(Invoicing.class));
			out.printf(Locale.ROOT, "Invoices:   %d for each of %s from %d threads%n", this.invoices, TENANTS, this.threads);
			return check(service, issued, out);
		}
	}

	private Map<String, List<UUID>> issue(Invoicing invoicing) throws Exception {
		Map<String, List<UUID>> issued = new LinkedHashMap<>();
		ExecutorService pool = Executors.newFixedThreadPool(this.threads);
		try {
			Map<String, List<Future<UUID>>> pending = new LinkedHashMap<>();
			for (int i = 0; i < this.invoices; i++) {
				for (String tenant : TENANTS) {
					long cents = 100L + i;
					pending.computeIfAbsent(tenant, (t) -> new ArrayList<>()).add(pool.submit(() -> invoicing.issue(tenant, cents)));
				}
			}
			for (Map.Entry<String, List<Future<UUID>>> entry : pending.entrySet()) {
				List<UUID> ids = new ArrayList<>();
				for (Future<UUID> invoice : entry.getValue()) {
					ids.add(invoice.get());
				}
				issued.put(entry.getKey(), ids);
			}
		}
		finally {
			pool.shutdownNow();
		}
		return issued;
	}

	private boolean check(ConfigurableApplicationContext service, Map<String, List<UUID>> issued, PrintStream out)
			throws InterruptedException {
		JdbcTemplate jdbc = service.getBean(JdbcTemplate.class);
		WaybillStores stores = service.getBean(WaybillStores.class);
		long deadline = System.nanoTime() + this.timeout.toNanos();
		Map<String, Long> entered = new LinkedHashMap<>();
		while (true) {
			for (String tenant : TENANTS) {
				entered.put(tenant, count(jdbc, stores, tenant, "ledger", "invoice_id", issued.get(tenant)));
			}
			if (entered.entrySet().stream().allMatch((e) -> e.getValue() == this.invoices) || System.nanoTime() > deadline) {
				break;
			}
			Thread.sleep(50);
		}
		boolean ok = true;
		for (String tenant : TENANTS) {
			String other = TENANTS.get((TENANTS.indexOf(tenant) + 1) % TENANTS.size());
			long crossed = count(jdbc, stores, tenant, "ledger", "invoice_id", issued.get(other))
					+ count(jdbc, stores, tenant, "invoices", "id", issued.get(other));
			long messages = jdbc.queryForObject("SELECT count(*) FROM " + stores.find(tenant).orElseThrow().schema()
					+ ".outbox_state WHERE status = 'published'", Long.class);
			out.printf(Locale.ROOT, "%-11s %d of %d invoices entered in its own ledger, %d relayed from its outbox, "
					+ "%d of %s's in its tables%n", tenant + ":", entered.get(tenant), this.invoices, messages, crossed, other);
			ok &= entered.get(tenant) == this.invoices && crossed == 0;
		}
		ok &= checkStatements(jdbc, stores, deadline, out);
		out.println(ok ? "OK: every tenant's invoice was entered exactly once, in its own store."
				: "NOT OK: see the counts above.");
		return ok;
	}

	/** Each store's statement run fired in that store and was recorded there, and in no other. */
	private static boolean checkStatements(JdbcTemplate jdbc, WaybillStores stores, long deadline, PrintStream out)
			throws InterruptedException {
		List<String> names = stores.all().stream().map((store) -> store.name()).toList();
		while (names.stream().anyMatch((name) -> statements(jdbc, stores, name, true) == 0) && System.nanoTime() < deadline) {
			Thread.sleep(50);
		}
		boolean ok = true;
		StringBuilder line = new StringBuilder("Statements:");
		for (String name : names) {
			long own = statements(jdbc, stores, name, true);
			long others = statements(jdbc, stores, name, false);
			line.append(String.format(Locale.ROOT, " %s %d run(s) in its own store, %d of others;", name, own, others));
			ok &= own > 0 && others == 0;
		}
		out.println(line.substring(0, line.length() - 1));
		return ok;
	}

	private static long statements(JdbcTemplate jdbc, WaybillStores stores, String name, boolean own) {
		return jdbc.queryForObject("SELECT count(*) FROM " + stores.find(name).orElseThrow().schema() + ".statements WHERE "
				+ (own ? "tenant = ?" : "tenant <> ?"), Long.class, name);
	}

	private static long count(JdbcTemplate jdbc, WaybillStores stores, String tenant, String table, String column,
			List<UUID> ids) {
		String schema = stores.find(tenant).orElseThrow().schema();
		return jdbc.queryForObject("SELECT count(*) FROM " + schema + "." + table + " WHERE " + column + " = ANY(?)",
				Long.class, (Object) ids.toArray(UUID[]::new));
	}

}
