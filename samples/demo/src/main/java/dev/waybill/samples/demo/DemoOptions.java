package dev.waybill.samples.demo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * What the demo runs: how many orders, from how many threads, how many fail their first billing
 * attempt, how many are delivered twice; and the Spring properties handed to both services.
 *
 * @param orders the orders to place, at least 2 (one of them cannot be billed)
 * @param threads the threads placing them, at least 1
 * @param failureFraction the fraction of orders whose first billing attempt fails, 0 to 1
 * @param duplicates the OrderPlaced messages the simulated relay crash publishes a second time
 * @param timeout how long the demo waits for everything to be billed and purged
 * @param serviceArguments {@code --name=value} arguments for both services (spring.*, waybill.*, ...)
 */
public record DemoOptions(int orders, int threads, double failureFraction, int duplicates, Duration timeout,
		List<String> serviceArguments) {

	/** The usage text. */
	public static final String USAGE = """
			Options:
			  --orders=N              orders to place (default 1000, at least 2)
			  --threads=T             threads placing them (default 8)
			  --failure-fraction=F    fraction of orders whose first billing attempt fails (default 0.05)
			  --duplicates=D          messages published twice by a simulated relay crash (default orders/50)
			  --timeout=S             seconds to wait for the flow to finish (default 90)
			  --tenants               run the tenants scenario instead: one invoicing service whose two
			                          tenants each have a store of their own (--orders invoices each)
			  --keep-running          afterwards keep both services running, with their operations
			                          consoles (http://127.0.0.1:<port>/waybill, writes enabled), until Ctrl-C
			  --spring.*=... --waybill.*=... --billing.*=...   passed to both services, e.g.
			  --spring.datasource.url=jdbc:postgresql://localhost:5432/postgres --spring.rabbitmq.host=localhost
			""";

	public DemoOptions {
		require(orders >= 2, "--orders", orders, "at least 2");
		require(threads >= 1, "--threads", threads, "at least 1");
		require(failureFraction >= 0 && failureFraction <= 1, "--failure-fraction", failureFraction, "between 0 and 1");
		require(duplicates >= 0 && duplicates < orders, "--duplicates", duplicates, "between 0 and orders - 1");
		require(!timeout.isNegative() && !timeout.isZero(), "--timeout", timeout.toSeconds(), "at least 1");
		serviceArguments = List.copyOf(serviceArguments);
	}

	/**
	 * Returns the defaults for {@code orders} orders.
	 * @param orders the orders to place
	 * @return the options
	 */
	public static DemoOptions defaults(int orders) {
		return new DemoOptions(orders, 8, 0.05, Math.max(1, orders / 50), Duration.ofSeconds(90), List.of());
	}

	/**
	 * Reads the command line.
	 * @param args {@code --name=value} arguments
	 * @return the options
	 * @throws IllegalArgumentException naming the option that is unknown or invalid
	 */
	public static DemoOptions parse(String... args) {
		Integer orders = null;
		Integer threads = null;
		Double failureFraction = null;
		Integer duplicates = null;
		Integer timeout = null;
		List<String> serviceArguments = new ArrayList<>();
		for (String arg : args) {
			int equals = arg.indexOf('=');
			if (!arg.startsWith("--") || equals < 0) {
				throw new IllegalArgumentException("Unexpected argument '" + arg + "': use --name=value.\n" + USAGE);
			}
			String name = arg.substring(2, equals);
			String value = arg.substring(equals + 1);
			switch (name) {
				case "orders" -> orders = integer(name, value);
				case "threads" -> threads = integer(name, value);
				case "failure-fraction" -> failureFraction = decimal(name, value);
				case "duplicates" -> duplicates = integer(name, value);
				case "timeout" -> timeout = integer(name, value);
				default -> {
					if (!name.contains(".")) {
						throw new IllegalArgumentException("Unknown option --" + name + ".\n" + USAGE);
					}
					serviceArguments.add(arg);
				}
			}
		}
		DemoOptions defaults = defaults((orders != null) ? orders : 1000);
		return new DemoOptions(defaults.orders(), (threads != null) ? threads : defaults.threads(),
				(failureFraction != null) ? failureFraction : defaults.failureFraction(),
				(duplicates != null) ? duplicates : defaults.duplicates(),
				(timeout != null) ? Duration.ofSeconds(timeout) : defaults.timeout(), serviceArguments);
	}

	private static int integer(String name, String value) {
		try {
			return Integer.parseInt(value.trim());
		}
		catch (NumberFormatException ex) {
			throw new IllegalArgumentException("--" + name + "=" + value + " is not a whole number");
		}
	}

	private static double decimal(String name, String value) {
		try {
			return Double.parseDouble(value.trim());
		}
		catch (NumberFormatException ex) {
			throw new IllegalArgumentException("--" + name + "=" + value + " is not a number such as 0.05");
		}
	}

	private static void require(boolean valid, String option, Object value, String rule) {
		if (!valid) {
			throw new IllegalArgumentException(option + "=" + value + " is invalid: it must be " + rule);
		}
	}

}
