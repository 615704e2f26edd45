package dev.waybill.benchmarks;

import java.util.List;

/**
 * One benchmark of the table, selected on the command line by one of {@link BenchmarkOptions#NAMES}
 * (see {@link BenchmarkMain}). It creates what it needs through the {@link BenchContext} (which
 * removes it afterwards), repeats its measurement {@link BenchContext#runs()} times and returns one
 * {@link Measurement} per figure.
 */
interface Benchmark {

	/**
	 * Runs the benchmark.
	 * @param context the services, sizes and clean-up
	 * @param progress prints a line of progress
	 * @return the figures
	 */
	List<Measurement> run(BenchContext context, Progress progress) throws Exception;

	/**
	 * Where a benchmark reports its progress.
	 */
	@FunctionalInterface
	interface Progress {

		void report(String line);

	}

}
