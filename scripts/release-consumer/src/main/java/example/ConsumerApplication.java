package example;

import io.slidingwindow.spring.RateLimit;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** An application with one limited endpoint, as the README shows it. */
@SpringBootApplication
@RestController
public class ConsumerApplication {

  @GetMapping("/hello")
  @RateLimit(limits = "5/10s")
  public String hello() {
    return "hello";
  }

  public static void main(String[] args) {
    SpringApplication.run(ConsumerApplication.class, args);
  }
}
