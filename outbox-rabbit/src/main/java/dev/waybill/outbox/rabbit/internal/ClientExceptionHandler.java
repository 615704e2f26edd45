package dev.waybill.outbox.rabbit.internal;

import java.io.IOException;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.Consumer;
import com.rabbitmq.client.ShutdownSignalException;
import com.rabbitmq.client.impl.DefaultExceptionHandler;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The RabbitMQ client's default handling, without the errors and stack traces it logs for what a
 * broker restart causes anyway:
 * <ul>
 * <li>a failed attempt to recover a connection (the broker still down, or a proxy in front of it
 * that accepts and closes): a warning without stack trace, at most one a minute unless the
 * reason changes (the transport logs when recovery starts and when it is done);</li>
 * <li>a socket closed under a connection: a debug line (the loss is reported where it is
 * handled);</li>
 * <li>a delivery handled after its channel was lost, whose acknowledgement cannot be sent: a
 * debug line (the broker delivers it again and the inbox recognises the duplicate).</li>
 * </ul>
 */
final class ClientExceptionHandler extends DefaultExceptionHandler {

	private static final Log logger = LogFactory.getLog(ClientExceptionHandler.class);

	private static final long RECOVERY_WARNING_INTERVAL_NANOS = 60_000_000_000L;

	private final Object monitor = new Object();

	private String lastRecoveryFailure = "";

	private long lastRecoveryWarning;

	@Override
	public void handleConnectionRecoveryException(Connection connection, Throwable exception) {
		String reason = BrokerErrors.describe(exception);
		String text = "Waybill could not recover its connection " + connection.getClientProvidedName() + " yet: "
				+ reason;
		long now = System.nanoTime();
		boolean warn;
		synchronized (this.monitor) {
			warn = !reason.equals(this.lastRecoveryFailure)
					|| now - this.lastRecoveryWarning >= RECOVERY_WARNING_INTERVAL_NANOS;
			if (warn) {
				this.lastRecoveryFailure = reason;
				this.lastRecoveryWarning = now;
			}
		}
		if (warn) {
			logger.warn(text);
		}
		else {
			logger.debug(text);
		}
	}

	@Override
	public void handleUnexpectedConnectionDriverException(Connection connection, Throwable exception) {
		if (exception instanceof IOException) { // the socket closed under the connection: it is lost, and reported so
			logger.debug("The connection " + connection.getClientProvidedName() + " closed: " + exception);
			return;
		}
		super.handleUnexpectedConnectionDriverException(connection, exception);
	}

	@Override
	public void handleConsumerException(Channel channel, Throwable exception, Consumer consumer, String consumerTag,
			String methodName) {
		// Waybill's consumers throw only when an ack or nack cannot be sent
		if (!channel.isOpen() || exception instanceof ShutdownSignalException || exception instanceof IOException) {
			logger.debug("A delivery was handled after its channel closed; it could not be acknowledged and the broker "
					+ "delivers it again: " + BrokerErrors.describe(exception));
			return;
		}
		super.handleConsumerException(channel, exception, consumer, consumerTag, methodName);
	}

}
