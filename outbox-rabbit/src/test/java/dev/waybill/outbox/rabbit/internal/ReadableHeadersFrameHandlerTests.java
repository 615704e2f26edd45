package dev.waybill.outbox.rabbit.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIOException;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.impl.AMQContentHeader;
import com.rabbitmq.client.impl.AMQImpl;
import com.rabbitmq.client.impl.ClientVersion;
import com.rabbitmq.client.impl.Frame;
import com.rabbitmq.client.impl.FrameHandler;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import dev.waybill.inbox.InboxHeaders;

/**
 * {@link ReadableHeadersFrameHandler} and {@link FrameFields} on the RabbitMQ client these tests
 * run with: the build runs them with the client {@code waybill-bom} pins and with the one Spring
 * Boot's dependency management pins, whose {@code Frame} and {@code FrameHandler} differ.
 */
class ReadableHeadersFrameHandlerTests {

	private final List<String> forwarded = new ArrayList<>();

	private @Nullable Frame next;

	@Test
	void readsTheTypeAndChannelOfAFrame() {
		FrameFields.require();
		Frame frame = new Frame(AMQP.FRAME_BODY, 7, new byte[] { 1 });
		assertThat(FrameFields.type(frame)).as("client %s", ClientVersion.VERSION).isEqualTo(AMQP.FRAME_BODY);
		assertThat(FrameFields.channel(frame)).isEqualTo(7);
	}

	@Test
	void aContentHeaderWithUnreadableHeadersIsReplacedOnItsChannel() throws IOException {
		AMQP.BasicProperties properties = new AMQP.BasicProperties.Builder().messageId("m-1")
			.headers(Map.of("deep", ReadableHeadersTests.nested(40, false)))
			.build();
		this.next = ((AMQContentHeader) properties).toFrame(3, 12);

		Frame read = guarded().readFrame();

		assertThat(read).isNotSameAs(this.next);
		assertThat(FrameFields.type(read)).isEqualTo(AMQP.FRAME_HEADER);
		assertThat(FrameFields.channel(read)).isEqualTo(3);
		AMQP.BasicProperties readable = (AMQP.BasicProperties) AMQImpl
			.readContentHeaderFrom(new DataInputStream(new ByteArrayInputStream(read.getPayload())));
		assertThat(readable.getMessageId()).isEqualTo("m-1");
		assertThat(readable.getHeaders()).containsOnlyKeys(InboxHeaders.UNREADABLE_HEADERS,
				InboxHeaders.UNREADABLE_HEADERS_REASON);
	}

	@Test
	void readableHeadersOtherFramesAndNoFrameAreHandedOnAsTheyAre() throws IOException {
		FrameHandler guarded = guarded();
		this.next = ((AMQContentHeader) new AMQP.BasicProperties.Builder().headers(Map.of("tenant", "acme"))
			.build()).toFrame(1, 1);
		assertThat(guarded.readFrame()).isSameAs(this.next);
		this.next = new Frame(AMQP.FRAME_BODY, 1, new byte[] { 1 });
		assertThat(guarded.readFrame()).isSameAs(this.next);
		this.next = null;
		assertThat(guarded.readFrame()).isNull();
	}

	@Test
	void everyOtherCallReachesTheClientsHandlerAndItsExceptionsAsTheyAre() throws IOException {
		FrameHandler guarded = guarded();
		assertThat(guarded.getPort()).isEqualTo(5672);
		guarded.close();
		assertThatIOException().isThrownBy(guarded::sendHeader).withMessage("refused");
		assertThat(this.forwarded).containsExactly("getPort", "close", "sendHeader");
		assertThat(guarded).isEqualTo(guarded).isNotEqualTo(guarded());
	}

	/**
	 * A handler built as a proxy of the client's own {@link FrameHandler}, so that it implements
	 * that interface as it is on every client version.
	 */
	private FrameHandler guarded() {
		FrameHandler client = (FrameHandler) Proxy.newProxyInstance(FrameHandler.class.getClassLoader(),
				new Class<?>[] { FrameHandler.class }, (proxy, method, args) -> {
					switch (method.getName()) {
						case "readFrame":
							return this.next;
						case "getPort":
							this.forwarded.add(method.getName());
							return 5672;
						case "sendHeader":
							this.forwarded.add(method.getName());
							throw new IOException("refused");
						default:
							this.forwarded.add(method.getName());
							return null;
					}
				});
		return ReadableHeadersFrameHandler.around(client);
	}

}
