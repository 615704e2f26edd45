package dev.waybill.samples.demo;

import java.io.IOException;
import java.util.concurrent.TimeoutException;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import org.springframework.core.env.Environment;

/**
 * Where the broker is, for the demo's own look at the error queue.
 *
 * @param host the host
 * @param port the AMQP port
 * @param username the user
 * @param password the password
 * @param virtualHost the virtual host
 */
record BrokerAddress(String host, int port, String username, String password, String virtualHost) {

	static BrokerAddress of(Environment environment) {
		return new BrokerAddress(environment.getProperty("spring.rabbitmq.host", "localhost"),
				environment.getProperty("spring.rabbitmq.port", Integer.class, 5672),
				environment.getProperty("spring.rabbitmq.username", "guest"),
				environment.getProperty("spring.rabbitmq.password", "guest"),
				environment.getProperty("spring.rabbitmq.virtual-host", "/"));
	}

	/**
	 * Returns how many messages wait in a queue.
	 * @param queue the queue, which must exist
	 * @return its message count
	 * @throws IOException when the broker cannot be reached or the queue does not exist
	 */
	long messagesIn(String queue) throws IOException {
		ConnectionFactory factory = new ConnectionFactory();
		factory.setHost(this.host);
		factory.setPort(this.port);
		factory.setUsername(this.username);
		factory.setPassword(this.password);
		factory.setVirtualHost(this.virtualHost);
		try (Connection connection = factory.newConnection("waybill-demo"); Channel channel = connection.createChannel()) {
			return channel.queueDeclarePassive(queue).getMessageCount();
		}
		catch (TimeoutException ex) {
			throw new IOException("Timed out talking to the broker at " + this, ex);
		}
	}

	@Override
	public String toString() {
		return "amqp://" + this.host + ":" + this.port + ("/".equals(this.virtualHost) ? "" : "/" + this.virtualHost);
	}

}
