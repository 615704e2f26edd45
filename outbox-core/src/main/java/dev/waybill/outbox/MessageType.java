package dev.waybill.outbox;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Names a message class's type: the name consumers bind to and, for
 * {@link OutboxPublisher#publish(Object)}, the exchange the message goes to. Give every message
 * class that crosses a service boundary one, so renaming or moving the class does not change its
 * contract. Without it the type is the class's canonical name, e.g. {@code com.acme.OrderPlaced}.
 * <p>
 * The name must be 1 to 255 characters of letters, digits, {@code -}, {@code _}, {@code .} and
 * {@code :}, the characters every AMQP 0-9-1 broker accepts in an exchange name.
 *
 * @since 0.1
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface MessageType {

	/**
	 * The message type name, e.g. {@code "orders.order-placed"}.
	 * @return the message type name
	 */
	String value();

}
