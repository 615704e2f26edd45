package dev.waybill.outbox.rabbit;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.ShutdownSignalException;
import org.jspecify.annotations.Nullable;

/**
 * Reads the broker's reasons out of the RabbitMQ client's exceptions.
 */
final class BrokerErrors {

	private BrokerErrors() {
	}

	/**
	 * Finds the shutdown signal behind a failure: the failure itself or one of its causes.
	 * @param failure the failure
	 * @return the signal, or {@literal null} when there is none (a network error)
	 */
	static @Nullable ShutdownSignalException signal(@Nullable Throwable failure) {
		for (Throwable current = failure; current != null; current = current.getCause()) {
			if (current instanceof ShutdownSignalException signal) {
				return signal;
			}
			if (current.getCause() == current) {
				break;
			}
		}
		return null;
	}

	/**
	 * Returns the reply code of a channel closed by the broker.
	 * @param signal the signal
	 * @return the code, or 0 when it is not a channel close sent by the broker
	 */
	static int channelReplyCode(ShutdownSignalException signal) {
		if (!signal.isHardError() && signal.getReason() instanceof AMQP.Channel.Close close) {
			return close.getReplyCode();
		}
		return 0;
	}

	/**
	 * Describes a failure in one line: the broker's reply text when it closed the channel or
	 * connection, else the network error.
	 * @param failure the failure
	 * @return the description
	 */
	static String describe(@Nullable Throwable failure) {
		ShutdownSignalException signal = signal(failure);
		if (signal != null) {
			if (signal.getReason() instanceof AMQP.Channel.Close close) {
				return close.getReplyText();
			}
			if (signal.getReason() instanceof AMQP.Connection.Close close) {
				return close.getReplyText();
			}
			Throwable cause = signal.getCause();
			String what = signal.isHardError() ? "connection lost" : "channel closed";
			if (signal.isInitiatedByApplication()) {
				what += " by the application";
			}
			return (cause != null) ? what + " (" + cause + ")" : what;
		}
		if (failure == null) {
			return "unknown reason";
		}
		return (failure.getMessage() != null) ? failure.getClass().getSimpleName() + ": " + failure.getMessage()
				: failure.toString();
	}

}
