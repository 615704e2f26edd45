package dev.waybill.benchmarks;

import java.util.Arrays;
import java.util.List;

/**
 * Order statistics of measured values: the median, minimum and maximum of repeated runs, and
 * percentiles of latency samples (nearest rank on the sorted samples, no histogram).
 */
public final class Stats {

	private Stats() {
	}

	/**
	 * Returns the median: the middle value, or the mean of the two middle values.
	 * @param values at least one value
	 * @return the median
	 */
	public static double median(List<Double> values) {
		double[] sorted = sorted(values);
		int middle = sorted.length / 2;
		return (sorted.length % 2 == 1) ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
	}

	public static double min(List<Double> values) {
		return sorted(values)[0];
	}

	public static double max(List<Double> values) {
		double[] sorted = sorted(values);
		return sorted[sorted.length - 1];
	}

	/**
	 * Returns the nearest-rank percentile of sorted samples: the smallest sample that at least
	 * {@code percent}% of the samples do not exceed.
	 * @param sortedSamples samples in ascending order, at least one
	 * @param percent between 0 (exclusive) and 100 (inclusive)
	 * @return the percentile
	 */
	public static long percentile(long[] sortedSamples, double percent) {
		if (sortedSamples.length == 0) {
			throw new IllegalArgumentException("percentile of no samples");
		}
		if (!(percent > 0 && percent <= 100)) {
			throw new IllegalArgumentException("percent must be in (0, 100], was " + percent);
		}
		int rank = (int) Math.ceil(percent / 100 * sortedSamples.length);
		return sortedSamples[Math.max(rank, 1) - 1];
	}

	private static double[] sorted(List<Double> values) {
		if (values.isEmpty()) {
			throw new IllegalArgumentException("no values");
		}
		double[] sorted = values.stream().mapToDouble(Double::doubleValue).toArray();
		Arrays.sort(sorted);
		return sorted;
	}

}
