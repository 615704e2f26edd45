package dev.waybill.docs.snippets.gettingstarted;

import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/** The application docs/getting-started.md builds, as start.spring.io generates it plus the page's runner. */
@SpringBootApplication
public class GettingStartedApplication {

  public static void main(String[] args) {
    SpringApplication.run(GettingStartedApplication.class, args);
  }

  // tag::runner[]
  @Bean
  ApplicationRunner placeOne(OrderService orders) {
    return (args) -> System.out.println("placed " + orders.place(1250));
  }
  // end::runner[]

}
