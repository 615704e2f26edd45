package dev.waybill.test;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

/**
 * Polls a probe with Awaitility until it finds something or the timeout passes, then fails with
 * an {@link AssertionError} that says what was expected and everything the harness observed.
 *
 * @param timeout how long each wait waits
 * @param pollInterval how long it sleeps between two polls
 * @param report what the failure lists: everything observed and still under way
 * @since 0.1
 */
record Awaiting(Duration timeout, Duration pollInterval, Supplier<String> report) {

	Awaiting {
		Objects.requireNonNull(timeout, "timeout must not be null");
		Objects.requireNonNull(pollInterval, "pollInterval must not be null");
		Objects.requireNonNull(report, "report must not be null");
	}

	Awaiting within(Duration timeout) {
		return new Awaiting(timeout, this.pollInterval, this.report);
	}

	<R> R await(String expectation, Supplier<Optional<R>> probe) {
		AtomicReference<R> found = new AtomicReference<>();
		try {
			Awaitility.await(expectation)
				.atMost(this.timeout)
				.pollDelay(Duration.ZERO)
				.pollInterval(this.pollInterval)
				.until(() -> {
					Optional<R> result = probe.get();
					result.ifPresent(found::set);
					return result.isPresent();
				});
		}
		catch (ConditionTimeoutException ex) {
			throw new AssertionError("Expected " + expectation + " within " + this.timeout + ", but it did not happen.\n"
					+ this.report.get(), ex);
		}
		return found.get();
	}

	/**
	 * Waits until {@code condition} holds at two polls in a row: a scheduled message is owed to its
	 * consumers only once the relay reports it published, an instant after its scope stopped being
	 * pending.
	 */
	void awaitSteadily(String expectation, BooleanSupplier condition) {
		AtomicBoolean before = new AtomicBoolean();
		await(expectation, () -> {
			boolean now = condition.getAsBoolean();
			boolean confirmed = now && before.get();
			before.set(now);
			return confirmed ? Optional.of(Boolean.TRUE) : Optional.empty();
		});
	}

}
