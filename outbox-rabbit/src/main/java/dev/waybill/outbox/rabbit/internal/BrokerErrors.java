package dev.waybill.outbox.rabbit.internal;

import java.security.cert.CertificateException;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.AuthenticationFailureException;
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
	 * Tells whether the broker refused an operation for want of a permission (ACCESS_REFUSED, 403).
	 * @param failure the failure
	 * @return whether it is a refused permission
	 */
	static boolean accessRefused(@Nullable Throwable failure) {
		ShutdownSignalException signal = signal(failure);
		if (signal == null) {
			return false;
		}
		if (signal.getReason() instanceof AMQP.Channel.Close close) {
			return close.getReplyCode() == AMQP.ACCESS_REFUSED;
		}
		return signal.getReason() instanceof AMQP.Connection.Close close && close.getReplyCode() == AMQP.ACCESS_REFUSED;
	}

	/**
	 * Tells whether the broker was reached and refused the connection itself: the credentials
	 * (ACCESS_REFUSED at login) or the virtual host (NOT_ALLOWED). Retrying cannot help until an
	 * operator changes the configuration or the broker's users.
	 * @param failure the failure
	 * @return whether it is a refused connection
	 */
	static boolean connectionRefused(@Nullable Throwable failure) {
		for (Throwable current = failure; current != null && current.getCause() != current; current = current.getCause()) {
			if (current instanceof AuthenticationFailureException) {
				return true;
			}
		}
		ShutdownSignalException signal = signal(failure);
		return signal != null && signal.getReason() instanceof AMQP.Connection.Close close
				&& (close.getReplyCode() == AMQP.ACCESS_REFUSED || close.getReplyCode() == AMQP.NOT_ALLOWED);
	}

	/**
	 * Tells whether the TLS handshake failed because this side rejected the broker's certificate:
	 * not trusted (no trust anchor, a wrong trust store or SSL bundle), expired, or not naming the
	 * host connected to (host name verification). Like a refused login, retrying cannot help until
	 * an operator changes the trust material, the address or the broker's certificate.
	 * @param failure the failure
	 * @return whether the broker's certificate was rejected
	 */
	static boolean certificateRejected(@Nullable Throwable failure) {
		for (Throwable current = failure; current != null && current.getCause() != current; current = current.getCause()) {
			if (current instanceof CertificateException) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Reads the exchange out of the broker's ACCESS_REFUSED text, {@code access to exchange 'x' in
	 * vhost 'v' refused for user 'u'}.
	 * @param signal the refusal
	 * @return the exchange, or {@literal null} when the text names none
	 */
	static @Nullable String refusedExchange(ShutdownSignalException signal) {
		String text = describe(signal);
		java.util.regex.Matcher matcher = REFUSED_EXCHANGE.matcher(text);
		return matcher.find() ? matcher.group(1) : null;
	}

	private static final java.util.regex.Pattern REFUSED_EXCHANGE = java.util.regex.Pattern
		.compile("exchange '(.*)' in vhost '");

	/**
	 * Tells whether the broker refused to declare or consume a queue because the node that holds it
	 * is down ({@code NOT_FOUND - home node 'rabbit@a' of durable queue 'q' in vhost '/' is down or
	 * inaccessible}: a classic queue while its node restarts): the queue is back with its node, so
	 * this is the broker being unavailable, not a refusal an operator must act on.
	 * @param signal the channel's close
	 * @return whether the queue's node is down
	 */
	static boolean queueNodeDown(@Nullable ShutdownSignalException signal) {
		if (signal == null || channelReplyCode(signal) != AMQP.NOT_FOUND) {
			return false;
		}
		String text = describe(signal);
		return text.contains("home node '") && text.contains("is down or inaccessible");
	}

	/**
	 * Names a refused permission: who, where, on what. A permission is an operator's to grant, so
	 * the failure is the message's ({@code MESSAGE}: retried with backoff, an attempt counted), not
	 * the broker's being down: it opens no circuit, and a granted permission lets the next retry
	 * through.
	 * @param permission the permission that was missing, {@code configure} or {@code write}
	 * @param user the RabbitMQ user
	 * @param virtualHost the virtual host
	 * @param exchange the exchange
	 * @param failure the broker's refusal
	 * @return the description
	 */
	static String permissionRefused(String permission, String user, String virtualHost, String exchange,
			@Nullable Throwable failure) {
		return "Permission refused: RabbitMQ user '" + user + "' has no " + permission + " permission on exchange '"
				+ exchange + "' in vhost '" + virtualHost + "'; grant it (rabbitmqctl set_permissions) and the "
				+ "scope is delivered on its next retry (broker: " + describe(failure) + ")";
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
