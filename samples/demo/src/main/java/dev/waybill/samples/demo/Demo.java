package dev.waybill.samples.demo;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.SimpleCommandLinePropertySource;
import org.springframework.core.env.StandardEnvironment;

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
			DemoResult result = run(options, environment, out);
			out.print(result.summary());
			return result.ok() ? 0 : 1;
		}
		catch (Exception ex) {
			out.println("FAILED: " + ex);
			ex.printStackTrace(out);
			return 1;
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
		out.println("Waybill demo: an order service and a billing service in one JVM, joined by outboxes and inboxes");
		long start = System.nanoTime();
		try (DemoInfrastructure infrastructure = DemoInfrastructure.start(environment, out)) {
			List<String> arguments = new ArrayList<>(infrastructure.serviceArguments());
			arguments.add("--billing.first-attempt-failure-fraction=" + options.failureFraction());
			arguments.addAll(options.serviceArguments());
			try (DemoServices services = DemoServices.start(arguments)) {
				out.printf(Locale.ROOT, "Services:   billing-service and order-service (HTTP port %d) started in %.1f s%n",
						services.orderPort(), (System.nanoTime() - start) / 1e9);
				return new DemoScenario(services, options, infrastructure.brokerAddress(), out).run();
			}
		}
	}

}
