package dev.waybill.benchmarks;

import java.io.IOException;
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

	private static final Map<String, Supplier<Benchmark>> BENCHMARKS = Map.ofEntries(
			Map.entry(BrokerCeiling.NAME, BrokerCeiling::new), Map.entry(RelayThroughput.NAME, RelayThroughput::new),
			Map.entry(WritePath.NAME, WritePath::new), Map.entry(Latency.NAME, Latency::new),
			Map.entry(InboxThroughput.NAME, InboxThroughput::new), Map.entry(RetentionPurge.NAME, RetentionPurge::new),
			Map.entry(TableScale.NAME, TableScale::new), Map.entry(OrderedRelayThroughput.NAME, OrderedRelayThroughput::new),
			Map.entry(TracingCost.NAME, TracingCost::new), Map.entry(WalLifecycle.NAME, WalLifecycle::new),
			Map.entry(PooledLatency.NAME, PooledLatency::new),
			Map.entry(StandbyLatency.NAME, StandbyLatency::new),
			Map.entry(StoreRelayThroughput.NAME, StoreRelayThroughput::new));

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
		System.exit((options.chartsOnly() ? Charts.redraw(options) : run(options)) ? 0 : 1);
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
		writeResults(options, table, markdown, started, failed);
		return failed.isEmpty();
	}

	/**
	 * Writes the table and the charts under the results directory and, with {@code --update-doc},
	 * into the document.
	 */
	static void writeResults(BenchmarkOptions options, ResultTable table, String markdown, LocalDateTime started,
			List<String> failed) throws IOException {
		Path written = ResultFiles.write(options.resultsDirectory(), markdown, table.csv(), started);
		System.out.println("Written to " + written + " and " + options.resultsDirectory().resolve("latest.md") + " (.csv)");
		List<Charts.Chart> charts = drawCharts(table, new ChartRun(started, command(options)), failed);
		String prefix = written.getFileName().toString().replaceFirst("\\.md$", "");
		for (Path chart : Charts.write(options.resultsDirectory(), prefix, charts)) {
			System.out.println("Drew " + chart);
		}
		if (options.updateDocument()) {
			Charts.writeForDocument(options.document(), charts);
			Charts.keepForDocument(options.document(), options.resultsDirectory());
			ResultFiles.updateDocument(options.document(), Charts.withLinks(markdown, charts));
			System.out.println("Updated the table" + (charts.isEmpty() ? "" : " and its charts") + " in "
					+ options.document());
		}
	}

	/**
	 * Draws the charts; a chart that cannot be drawn fails the run but loses none of its figures,
	 * which are written before.
	 */
	private static List<Charts.Chart> drawCharts(ResultTable table, ChartRun run, List<String> failed) {
		try {
			return Charts.draw(table.measurements(), table.targets(), run);
		}
		catch (RuntimeException ex) {
			failed.add("charts");
			System.err.println("charts FAILED: " + ex);
			ex.printStackTrace();
			return List.of();
		}
	}

	private static String command(BenchmarkOptions options) {
		return "./benchmarks/run " + String.join(" ", options.benchmarks()) + (options.quick() ? " --quick" : "")
				+ " --runs " + options.runs();
	}

	private static String header(BenchmarkOptions options, LocalDateTime started, double seconds, String machine,
			List<String> failed) {
		String command = command(options);
		return "Run of " + DateTimeFormatter.ISO_LOCAL_DATE_TIME.format(started.withNano(0)) + " (" + Math.round(seconds)
				+ " s): `" + command + "`  \n" + machine + "  \nEach figure: median of " + options.runs()
				+ " runs, with the minimum and maximum." + (failed.isEmpty() ? "" : "  \n**Failed: " + String.join(", ", failed) + "**")
				+ "\n";
	}

}
