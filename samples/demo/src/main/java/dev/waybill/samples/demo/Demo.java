package dev.waybill.samples.demo;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.SimpleCommandLinePropertySource;
import org.springframework.core.env.StandardEnvironment;

import dev.waybill.samples.demo.tenants.TenantsDemo;

/**
 * Runs the order service and the billing service in one JVM and drives orders through them; exits
 * 0 only when every billable order was billed exactly once. See {@link DemoOptions#USAGE} for the
 * options and {@link DemoScenario} for what happens.
 */
public final class Demo {

	private Demo() {
	}

	public static void main(String[] args) {
		System.exit(run(args, System.out));
	}

	/**
	 * Runs the demo.
	 * @param args the command line
	 * @param out where the demo speaks
	 * @return the exit code: 0 when every billable order was billed exactly once, 1 when not, 2 for
	 * bad options
	 */
	public static int run(String[] args, PrintStream out) {
		// --keep-running and --tenants are flags, not DemoOptions' --name=value options.
		boolean keepRunning = Arrays.asList(args).contains(KEEP_RUNNING);
		boolean tenants = Arrays.asList(args).contains(TENANTS);
		args = Arrays.stream(args).filter((arg) -> !KEEP_RUNNING.equals(arg) && !TENANTS.equals(arg))
			.toArray(String[]::new);
		DemoOptions options;
		try {
			options = DemoOptions.parse(args);
		}
		catch (IllegalArgumentException ex) {
			out.println(ex.getMessage());
			return 2;
		}
		ConfigurableEnvironment environment = new StandardEnvironment();
		environment.getPropertySources().addFirst(new SimpleCommandLinePropertySource(args));
		try {
			if (tenants) {
				return runTenants(options, environment, out) ? 0 : 1;
			}
			DemoResult result = run(options, environment, out, keepRunning);
			if (!keepRunning) {
				out.print(result.summary());
			}
			return result.ok() ? 0 : 1;
		}
		catch (Exception ex) {
			out.println("FAILED: " + ex);
			ex.printStackTrace(out);
			return 1;
		}
	}

	/**
	 * Runs the tenants scenario ({@link TenantsDemo}): {@code options.orders()} invoices for each of
	 * two tenants, each a store of its own, from {@code options.threads()} threads.
	 * @param options how many and from how many threads, how long to wait
	 * @param environment where {@code spring.datasource.url} and {@code spring.rabbitmq.*} may be set
	 * @param out where the demo speaks
	 * @return whether every invoice was entered exactly once, in its own tenant's ledger
	 * @throws Exception when something cannot start
	 */
	public static boolean runTenants(DemoOptions options, ConfigurableEnvironment environment, PrintStream out)
			throws Exception {
		out.println("Waybill demo, tenants: one invoicing service, a store (a schema) per tenant, outbox to inbox");
		try (DemoInfrastructure infrastructure = DemoInfrastructure.start(environment, out)) {
			DemoServices.logOnce();
			List<String> arguments = new ArrayList<>(infrastructure.serviceArguments());
			arguments.addAll(options.serviceArguments());
			return new TenantsDemo(options.orders(), options.threads(), options.timeout()).run(arguments, out);
		}
	}

	/**
	 * Starts what is needed, runs the scenario and stops everything again.
	 * @param options what to run
	 * @param environment where {@code spring.datasource.url} and {@code spring.rabbitmq.*} may be set
	 * @param out where the demo speaks
	 * @return the result
	 * @throws Exception when something cannot start
	 */
	public static DemoResult run(DemoOptions options, ConfigurableEnvironment environment, PrintStream out)
			throws Exception {
		return run(options, environment, out, false);
	}

	/**
	 * Starts what is needed, runs the scenario and, with {@code keepRunning}, keeps both services
	 * running with their operations consoles (writes enabled, on 127.0.0.1 only) until the JVM is
	 * asked to stop (Ctrl-C), then stops everything.
	 * @param options what to run
	 * @param environment where {@code spring.datasource.url} and {@code spring.rabbitmq.*} may be set
	 * @param out where the demo speaks
	 * @param keepRunning whether to keep the services running after the scenario
	 * @return the result
	 * @throws Exception when something cannot start
	 */
	public static DemoResult run(DemoOptions options, ConfigurableEnvironment environment, PrintStream out,
			boolean keepRunning) throws Exception {
		out.println("Waybill demo: an order service and a billing service in one JVM, joined by outboxes and inboxes");
		long start = System.nanoTime();
		try {
			try (DemoInfrastructure infrastructure = DemoInfrastructure.start(environment, out)) {
				List<String> arguments = new ArrayList<>(infrastructure.serviceArguments());
				arguments.add("--billing.first-attempt-failure-fraction=" + options.failureFraction());
				if (keepRunning) {
					arguments.add("--waybill.admin.write-enabled=true");
				}
				arguments.addAll(options.serviceArguments());
				try (DemoServices services = DemoServices.start(arguments)) {
					out.printf(Locale.ROOT, "Services:   billing-service and order-service (HTTP port %d) started in %.1f s%n",
							services.orderPort(), (System.nanoTime() - start) / 1e9);
					DemoResult result = new DemoScenario(services, options, infrastructure.brokerAddress(), out).run();
					if (keepRunning) {
						out.print(result.summary());
						keepRunning(services, out);
					}
					return result;
				}
			}
		}
		finally {
			if (keepRunning) {
				closed.countDown(); // lets the shutdown hook, and so the JVM, finish
			}
		}
	}

	/**
	 * Prints where the consoles are and waits until the JVM shuts down; the shutdown waits in turn
	 * until the services and the infrastructure are closed.
	 */
	private static void keepRunning(DemoServices services, PrintStream out) throws InterruptedException {
		out.printf(Locale.ROOT, "%nStill running (--keep-running); Enter stops (Ctrl-C too, less tidily). Operations consoles:%n"
				+ "  order-service:   http://127.0.0.1:%d/waybill%n"
				+ "  billing-service: http://127.0.0.1:%d/waybill   (its error queue holds the order that cannot be billed)%n",
				services.orderPort(), services.billingPort());
		CountDownLatch stop = new CountDownLatch(1);
		Runtime.getRuntime().addShutdownHook(new Thread(() -> {
			stop.countDown();
			try {
				closed.await(60, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}, "demo-stop"));
		// Enter stops in order (services, then database and broker); a signal runs every shutdown hook
		// at once, the embedded PostgreSQL's among them, so the services may log its going away.
		Thread enter = new Thread(() -> {
			try {
				if (new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine() != null) {
					stop.countDown();
				}
			}
			catch (IOException ex) {
				// no console: the signal stops
			}
		}, "demo-enter");
		enter.setDaemon(true);
		enter.start();
		stop.await();
		out.println("Stopping ...");
	}

	private static final String KEEP_RUNNING = "--keep-running";

	private static final String TENANTS = "--tenants";

	/** Counted down once a kept-running demo has closed the services and the infrastructure. */
	private static final CountDownLatch closed = new CountDownLatch(1);

}
