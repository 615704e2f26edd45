package dev.waybill.outbox.rabbit.internal;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;

import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.impl.FrameHandlerFactory;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * A connection factory whose connections pass every content header frame through
 * {@link ReadableHeaders} before the client reads it, so that a message with headers the client
 * cannot read reaches the inbox (which sends it to the error queue) instead of dropping the
 * connection each time the broker delivers it. Frames are read this way by the client's default,
 * blocking I/O; with NIO or Netty enabled by a customizer, frames do not pass here and such a
 * message still drops the connection.
 */
final class ReadableHeadersConnectionFactory extends ConnectionFactory {

	private static final Log logger = LogFactory.getLog(ReadableHeadersConnectionFactory.class);

	private ReadableHeadersConnectionFactory() {
	}

	/**
	 * Returns a copy of {@code source}, as {@link ConnectionFactory#clone()} makes one (every field
	 * copied, shallow), whose connections make headers readable; the clone itself when the copy
	 * cannot be made.
	 * @param source the configured factory
	 * @return the copy
	 */
	static ConnectionFactory copyOf(ConnectionFactory source) {
		ReadableHeadersConnectionFactory copy = new ReadableHeadersConnectionFactory();
		try {
			FrameFields.require();
			for (Field field : ConnectionFactory.class.getDeclaredFields()) {
				if (!Modifier.isStatic(field.getModifiers())) {
					field.setAccessible(true);
					field.set(copy, field.get(source));
				}
			}
			return copy;
		}
		catch (ReflectiveOperationException | RuntimeException ex) {
			logger.warn("Waybill could not guard its consuming connections against messages with headers the RabbitMQ "
					+ "client cannot read (" + ex + "); such a message will drop the connection each time it is delivered");
			return source.clone();
		}
	}

	@Override
	protected synchronized FrameHandlerFactory createFrameHandlerFactory() throws IOException {
		FrameHandlerFactory factory = super.createFrameHandlerFactory();
		return (address, connectionName) -> ReadableHeadersFrameHandler.around(factory.create(address, connectionName));
	}

}
