package dev.waybill.inbox.internal;

import java.time.Clock;
import java.util.Objects;
import java.util.function.LongSupplier;

import dev.waybill.inbox.EndpointRetry;
import dev.waybill.inbox.Fault;
import dev.waybill.inbox.InboxListener;
import dev.waybill.inbox.internal.observation.InboxObservation;
import dev.waybill.outbox.RetryPolicy;
import dev.waybill.outbox.spi.Transport;

/**
 * How an {@link InboxProcessor} handles deliveries; immutable, each {@code with} method returns a
 * copy.
 *
 * @param retryPolicy the backoff between redeliveries and the maximum attempts (a consumer's
 * {@link EndpointRetry} overrides it)
 * @param immediateRetries in-process retries of a failed handler before a redelivery is scheduled,
 * at least 0
 * @param listener told each delivery's events and committed outcome
 * @param publishFaults whether a message given up after its handler failed every attempt is
 * published as a {@link Fault} to the exchange {@code fault:<message type>}, through the consumer
 * outbox, in the transaction that records the fault ({@code waybill.inbox.faults.publish})
 * @param maxHeaderBytes the frame budget of the copies the inbox forwards (redeliveries, faults),
 * read at each one: a redelivery whose headers would not fit faults the message at once, and a
 * fault copy is shortened until it fits; typically {@link Transport#maxHeaderBytes()}, and it must
 * answer without contacting the broker
 * @param observation how each delivery is observed ({@code waybill.inbox.process}, and the MDC
 * entries)
 * @param clock the host clock read for the times in the headers the inbox writes; redeliveries
 * fall due by the database's clock whatever this says
 * @since 0.1
 */
public record InboxSettings(RetryPolicy retryPolicy, int immediateRetries, InboxListener listener,
		boolean publishFaults, LongSupplier maxHeaderBytes, InboxObservation observation, Clock clock) {

	/**
	 * Checks the settings.
	 */
	public InboxSettings {
		Objects.requireNonNull(retryPolicy, "retryPolicy must not be null");
		if (immediateRetries < 0) {
			throw new IllegalArgumentException("immediateRetries must be at least 0, was " + immediateRetries);
		}
		Objects.requireNonNull(listener, "listener must not be null");
		Objects.requireNonNull(maxHeaderBytes, "maxHeaderBytes must not be null");
		Objects.requireNonNull(observation, "observation must not be null");
		Objects.requireNonNull(clock, "clock must not be null");
	}

	/**
	 * Returns settings with a retry policy and in-process retries, and the defaults for the rest: no
	 * listener, no fault events, {@link Transport#DEFAULT_MAX_HEADER_BYTES},
	 * {@link InboxObservation#NONE} (the MDC entries only) and the UTC system clock.
	 * @param retryPolicy the backoff between redeliveries and the maximum attempts
	 * @param immediateRetries in-process retries of a failed handler, at least 0
	 * @return the settings
	 */
	public static InboxSettings of(RetryPolicy retryPolicy, int immediateRetries) {
		return new InboxSettings(retryPolicy, immediateRetries, InboxListener.NONE, false,
				() -> Transport.DEFAULT_MAX_HEADER_BYTES, InboxObservation.NONE, Clock.systemUTC());
	}

	/**
	 * Returns a copy with another listener.
	 * @param listener the listener
	 * @return the copy
	 */
	public InboxSettings withListener(InboxListener listener) {
		return new InboxSettings(this.retryPolicy, this.immediateRetries, listener, this.publishFaults,
				this.maxHeaderBytes, this.observation, this.clock);
	}

	/**
	 * Returns a copy with fault events on or off.
	 * @param publishFaults whether to publish fault events
	 * @return the copy
	 */
	public InboxSettings withPublishFaults(boolean publishFaults) {
		return new InboxSettings(this.retryPolicy, this.immediateRetries, this.listener, publishFaults,
				this.maxHeaderBytes, this.observation, this.clock);
	}

	/**
	 * Returns a copy with another frame budget.
	 * @param maxHeaderBytes the frame budget, read at each forwarded copy
	 * @return the copy
	 */
	public InboxSettings withMaxHeaderBytes(LongSupplier maxHeaderBytes) {
		return new InboxSettings(this.retryPolicy, this.immediateRetries, this.listener, this.publishFaults,
				maxHeaderBytes, this.observation, this.clock);
	}

	/**
	 * Returns a copy with another observation.
	 * @param observation the observation
	 * @return the copy
	 */
	public InboxSettings withObservation(InboxObservation observation) {
		return new InboxSettings(this.retryPolicy, this.immediateRetries, this.listener, this.publishFaults,
				this.maxHeaderBytes, observation, this.clock);
	}

	/**
	 * Returns a copy with another host clock; for tests that skew it.
	 * @param clock the clock
	 * @return the copy
	 */
	public InboxSettings withClock(Clock clock) {
		return new InboxSettings(this.retryPolicy, this.immediateRetries, this.listener, this.publishFaults,
				this.maxHeaderBytes, this.observation, clock);
	}

}
