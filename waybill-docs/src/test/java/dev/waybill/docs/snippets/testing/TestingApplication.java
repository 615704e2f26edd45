package dev.waybill.docs.snippets.testing;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/** The application docs/testing.md's {@code PlaceOrderTests} finds, as a test finds its application's. */
@SpringBootApplication
class TestingApplication {
}
