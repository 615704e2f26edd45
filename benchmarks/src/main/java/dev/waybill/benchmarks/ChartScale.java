package dev.waybill.benchmarks;

import java.util.ArrayList;
import java.util.List;

/**
 * Maps values to pixels along one axis: linear from zero (throughput bars) or logarithmic over whole
 * decades (latency, which spans from under a millisecond to hundreds), with the ticks to label.
 */
abstract sealed class ChartScale {

	final double low;

	final double high;

	private final double startPixel;

	private final double endPixel;

	private ChartScale(double low, double high, double startPixel, double endPixel) {
		this.low = low;
		this.high = high;
		this.startPixel = startPixel;
		this.endPixel = endPixel;
	}

	/**
	 * A linear scale from 0 to a round number at or above {@code max}, ticked every 1, 2, 2.5 or 5
	 * times a power of ten.
	 * @param max the largest value to show
	 * @param startPixel where 0 goes
	 * @param endPixel where the top of the scale goes
	 * @return the scale
	 */
	static ChartScale linear(double max, double startPixel, double endPixel) {
		double step = niceStep(max > 0 ? max / 5 : 1);
		double top = Math.max(step, Math.ceil(max / step - 1e-9) * step);
		return new Linear(top, step, startPixel, endPixel);
	}

	/**
	 * A log-10 scale over the whole decades around {@code min} and {@code max}.
	 * @param min the smallest value to show, above 0
	 * @param max the largest value to show
	 * @param startPixel where the lowest decade goes
	 * @param endPixel where the highest decade goes
	 * @return the scale
	 */
	static ChartScale log(double min, double max, double startPixel, double endPixel) {
		double bottom = Math.pow(10, Math.floor(Math.log10(min) + 1e-9));
		double top = Math.pow(10, Math.ceil(Math.log10(max) - 1e-9));
		if (top <= bottom) {
			top = bottom * 10;
		}
		return new Log(bottom, top, startPixel, endPixel);
	}

	/**
	 * The pixel of a value; values outside the scale are clamped to its ends.
	 * @param value the value
	 * @return the pixel
	 */
	final double pixel(double value) {
		double fraction = Math.max(0, Math.min(1, fraction(value)));
		return this.startPixel + fraction * (this.endPixel - this.startPixel);
	}

	abstract double fraction(double value);

	abstract List<Double> ticks();

	static double niceStep(double rough) {
		double power = Math.pow(10, Math.floor(Math.log10(rough)));
		for (double factor : new double[] { 1, 2, 2.5, 5 }) {
			if (factor * power >= rough - 1e-9 * power) {
				return factor * power;
			}
		}
		return 10 * power;
	}

	static final class Linear extends ChartScale {

		private final double step;

		Linear(double top, double step, double startPixel, double endPixel) {
			super(0, top, startPixel, endPixel);
			this.step = step;
		}

		@Override
		double fraction(double value) {
			return value / this.high;
		}

		@Override
		List<Double> ticks() {
			List<Double> ticks = new ArrayList<>();
			for (int i = 0; i * this.step <= this.high + 1e-9 * this.step; i++) {
				ticks.add(i * this.step);
			}
			return ticks;
		}

	}

	static final class Log extends ChartScale {

		Log(double bottom, double top, double startPixel, double endPixel) {
			super(bottom, top, startPixel, endPixel);
		}

		@Override
		double fraction(double value) {
			if (value <= 0) {
				return 0;
			}
			return (Math.log10(value) - Math.log10(this.low)) / (Math.log10(this.high) - Math.log10(this.low));
		}

		@Override
		List<Double> ticks() {
			List<Double> ticks = new ArrayList<>();
			long first = Math.round(Math.log10(this.low));
			long last = Math.round(Math.log10(this.high));
			for (long exponent = first; exponent <= last; exponent++) {
				ticks.add(Math.pow(10, exponent));
			}
			return ticks;
		}

	}

}
