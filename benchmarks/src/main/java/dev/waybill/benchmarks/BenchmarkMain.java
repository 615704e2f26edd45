package dev.waybill.benchmarks;

import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Runs the selected benchmarks (see {@link BenchmarkOptions#USAGE}), prints the table and writes it
 * under the results directory; with {@code --update-doc} also into BENCHMARKS.md. Exits with 1 when
 * a benchmark failed (the others still run), 2 on a bad command line.
 */
public final class BenchmarkMain {

	private static final Map<String, Supplier<Benchmark>> BENCHMARKS = Map.of(BrokerCeiling.NAME, BrokerCeiling::new,
			RelayThroughput.NAME, RelayThroughput::new, WritePath.NAME, WritePath::new, Latency.NAME, Latency::new,
			InboxThroughput.NAME, InboxThroughput::new, RetentionPurge.NAME, RetentionPurge::new, TableScale.NAME,
			TableScale::new, OrderedRelayThroughput.NAME, OrderedRelayThroughput::new, TracingCost.NAME, TracingCost::new);

	private BenchmarkMain() {
	}

	public static void main(String[] args) throws Exception {
		BenchmarkOptions options;
		try {
			options = BenchmarkOptions.parse(args);
		}
		catch (IllegalArgumentException ex) {
			System.err.println(ex.getMessage());
			System.exit(2);
			return;
		}
		System.exit(run(options) ? 0 : 1);
	}

	static boolean run(BenchmarkOptions options) throws Exception {
		LocalDateTime started = LocalDateTime.now();
		Timer total = Timer.start();
		Sizes sizes = options.quick() ? Sizes.quick() : Sizes.full();
		BenchContext context = new BenchContext(sizes, options.runs());
		Thread cleanUpOnExit = new Thread(context::close, "bench-clean-up");
		Runtime.getRuntime().addShutdownHook(cleanUpOnExit);
		String machine = Machine.describe(context);
		System.out.println("Waybill benchmarks: " + String.join(", ", options.benchmarks()) + (options.quick() ? " (quick)" : "")
				+ ", " + options.runs() + " runs per figure");
		System.out.println("PostgreSQL " + context.postgres() + ", RabbitMQ " + context.rabbit());
		System.out.println(machine);
		List<Measurement> measurements = new ArrayList<>();
		List<String> failed = new ArrayList<>();
		try {
			for (String name : options.benchmarks()) {
				Benchmark benchmark = BENCHMARKS.get(name).get();
				Timer timer = Timer.start();
				System.out.println("== " + name);
				try {
					measurements.addAll(benchmark.run(context, (line) -> System.out.println("   " + name + ": " + line)));
				}
				catch (Exception | AssertionError ex) {
					failed.add(name);
					System.err.println(name + " FAILED: " + ex);
					ex.printStackTrace();
				}
				finally {
					context.cleanUp();
				}
				System.out.printf("   %s took %.0f s%n", name, timer.seconds());
			}
		}
		finally {
			context.close();
			Runtime.getRuntime().removeShutdownHook(cleanUpOnExit);
		}
		ResultTable table = new ResultTable(measurements, Targets.check(measurements));
		String markdown = header(options, started, total.seconds(), machine, failed) + "\n" + table.markdown();
		System.out.println();
		System.out.println(markdown);
		Path written = ResultFiles.write(options.resultsDirectory(), markdown, table.csv(), started);
		System.out.println("Written to " + written + " and " + options.resultsDirectory().resolve("latest.md") + " (.csv)");
		if (options.updateDocument()) {
			ResultFiles.updateDocument(options.document(), markdown);
			System.out.println("Updated the table in " + options.document());
		}
		return failed.isEmpty();
	}

	private static String header(BenchmarkOptions options, LocalDateTime started, double seconds, String machine,
			List<String> failed) {
		String command = "./benchmarks/run " + String.join(" ", options.benchmarks()) + (options.quick() ? " --quick" : "")
				+ " --runs " + options.runs();
		return "Run of " + DateTimeFormatter.ISO_LOCAL_DATE_TIME.format(started.withNano(0)) + " (" + Math.round(seconds)
				+ " s): `" + command + "`  \n" + machine + "  \nEach figure: median of " + options.runs()
				+ " runs, with the minimum and maximum." + (failed.isEmpty() ? "" : "  \n**Failed: " + String.join(", ", failed) + "**")
				+ "\n";
	}

}
